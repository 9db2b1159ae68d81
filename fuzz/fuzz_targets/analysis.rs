#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| coach::fuzzing::analysis(data));
