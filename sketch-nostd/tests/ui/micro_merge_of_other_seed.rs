fn main() {
    let mut a = sketch_nostd::MicroBloom::<3, 1>::new();
    let b = sketch_nostd::MicroBloom::<3, 2>::new();
    a.merge(&b);
}
