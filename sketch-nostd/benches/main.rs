//! Criterion benchmarks of the library's sketches (release mode, `cargo bench -p sketch-nostd`).
fn main() {}
