// Loads the prefilter (prefilter.wasm, the view compiled from sketch-nostd) and the filter bytes
// (a file: ?filter=NAME, default filter.bin), then answers for the URL box.
// Test mode: ?test=URLS.json queries every URL of that JSON array and writes the answers
// (0 "definitely safe", 1 "ask the server") as a JSON array into #results, then sets
// data-done on <body>.
const params = new URLSearchParams(location.search);
const answer = document.getElementById("answer");
const results = document.getElementById("results");

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

try {
  const [wasm, filter] = await Promise.all([
    bytes("prefilter.wasm"),
    bytes(params.get("filter") ?? "filter.bin"),
  ]);
  const { instance } = await WebAssembly.instantiate(wasm, {});
  const ex = instance.exports;
  // Copies data into the module's buffer: the pointer is valid until the next call into it, and
  // the memory view is made after the call (the memory may have grown).
  const put = (alloc, data) => {
    const ptr = alloc(data.length);
    new Uint8Array(ex.memory.buffer, ptr, data.length).set(data);
  };
  put(ex.prefilter_filter_buffer, filter);
  const kind = ex.prefilter_load();
  if (kind < 0) throw new Error("the filter file is not a valid prefilter");
  const encoder = new TextEncoder();
  const check = (url) => {
    const key = encoder.encode(url);
    put(ex.prefilter_key_buffer, key);
    return ex.prefilter_query(key.length);
  };

  const input = document.getElementById("url");
  const show = () => {
    if (input.value === "") {
      answer.textContent = `filter loaded (${filter.length} bytes, kind ${kind})`;
      answer.className = "";
    } else if (check(input.value) === 0) {
      answer.textContent = "definitely safe";
      answer.className = "safe";
    } else {
      answer.textContent = "ask the server";
      answer.className = "ask";
    }
  };
  input.addEventListener("input", show);
  show();

  if (params.has("test")) {
    const urls = JSON.parse(new TextDecoder().decode(await bytes(params.get("test"))));
    results.textContent = JSON.stringify(urls.map(check));
  }
} catch (e) {
  results.textContent = `error: ${e.message}`;
}
document.body.dataset.done = "1";
