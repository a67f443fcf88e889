#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| sketch_nostd_fuzz::quantile(data));
