#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| coach::fuzzing::model_error(data));
