fn main() {
    let mut a = sketch_nostd::Bloom::<4, 3>::new();
    let b = sketch_nostd::Bloom::<8, 3>::new();
    let _ = a.merge(&b);
}
