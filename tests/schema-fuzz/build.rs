//! Generates the messages of `schemas/random` (the random schemas) and of `schemas/cases`
//! (schemas written by hand, one per case), each folder one release, as a user's build script
//! does; and `visit.rs`, which finds a generated message by its schema name.
use kafka_wire_codegen::Generator;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut visit = String::from(
        "/// Calls `v` with the generated message the schemas name `name`; `None` when there is none.\n\
         pub fn visit<V: Visit>(name: &str, v: V) -> Option<V::Out> {\n    match name {\n",
    );
    for (dir, module) in [("schemas/random", "random"), ("schemas/cases", "cases")] {
        let generated = Generator::new()
            .schema_dir(dir)
            .out_dir(&out)
            .file_name(format!("{module}.rs"))
            .generate()
            .unwrap_or_else(|e| panic!("{dir}:\n{e}"));
        for name in generated.messages {
            let _ = writeln!(
                visit,
                "        {name:?} => Some(v.visit::<{module}::{name}>()),"
            );
        }
    }
    visit.push_str("        _ => None,\n    }\n}\n");
    std::fs::write(out.join("visit.rs"), visit).expect("OUT_DIR is writable");
}
