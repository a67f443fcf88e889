// Sketches are built in const contexts too (e.g. in a `static`), where the check fires in `cargo check`.
const _: () = {
    let _ = sketch_nostd::Bloom::<4, 33>::with_seed(1);
};

fn main() {}
