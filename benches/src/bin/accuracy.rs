//! Prints the deterministic accuracy and memory figures of every implementation (the non-timing rows
//! of the tables in docs/performance.md): `cargo run --release -p sketch-benches --bin accuracy`.

fn main() {
    let family = std::env::args().nth(1);
    let mut cells = Vec::new();
    match family.as_deref() {
        Some("bloom") => sketch_benches::accuracy::bloom(&mut cells),
        Some("hll") => sketch_benches::accuracy::hll(&mut cells),
        Some("countmin") => sketch_benches::accuracy::countmin(&mut cells),
        Some("deletable") => sketch_benches::accuracy::deletable(&mut cells),
        _ => cells = sketch_benches::accuracy::all(),
    }
    for c in cells {
        println!(
            "{:<10} {:<40} {:<28} {}",
            c.family, c.row, c.column, c.value
        );
    }
}
