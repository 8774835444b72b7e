// GET /docs: a self-contained API reference page rendered from /openapi.json in the browser.
// No CDN assets (Scalar/Swagger UI load from one), so it works on an offline on-prem install.
import { Elysia } from "elysia";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>aivis API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:1rem;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
.op{border:1px solid #e3e3e3;border-radius:6px;margin:.5rem 0;padding:.4rem .6rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700;font-family:monospace}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:20rem}
summary{cursor:pointer}
</style></head><body>
<h1>aivis API reference</h1>
<p>Machine-readable document: <a href="/openapi.json">/openapi.json</a>. Authenticate with the <code>api-key</code> header or the dashboard session cookie.</p>
<main id="ops">Loading…</main>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const byTag={};
  for(const [path,item] of Object.entries(doc.paths||{}))for(const [method,op] of Object.entries(item)){
    const tag=(op.tags&&op.tags[0])||'other';(byTag[tag]=byTag[tag]||[]).push({path,method,op});}
  const main=document.getElementById('ops');main.textContent='';
  for(const tag of Object.keys(byTag).sort()){
    const h=document.createElement('h2');h.textContent=tag;main.append(h);
    for(const {path,method,op} of byTag[tag]){
      const d=document.createElement('details');d.className='op';
      const s=document.createElement('summary');
      const m=document.createElement('span');m.className='m';m.textContent=method.toUpperCase();
      const c=document.createElement('code');c.textContent=path;
      s.append(m,c,document.createTextNode(op.summary?' — '+op.summary:''));d.append(s);
      const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody},null,2);d.append(pre);
      main.append(d);
    }
  }
}).catch(e=>{document.getElementById('ops').textContent='Could not load /openapi.json: '+e});
</script></body></html>`;

export function docsModule() {
  return new Elysia().get("/docs", () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), {
    detail: { hide: true },
  });
}
