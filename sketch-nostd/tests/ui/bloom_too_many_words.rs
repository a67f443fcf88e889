// Sketches are built in const contexts too (e.g. in a `static`), where the check fires in `cargo check`.
const _: () = {
    let _ = sketch_nostd::Bloom::<{ 1 << 26 }, 3>::from_parts([0; 1 << 26], 0);
};

fn main() {}
