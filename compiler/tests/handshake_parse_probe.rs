mod common;
#[test]
fn probe() {
    let Some(dir) = common::shared_dir() else { return };
    let dir = dir.join("handshake_examples");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "mlir")).collect();
    names.sort();
    for p in names {
        let text = std::fs::read_to_string(&p).unwrap();
        for (off, chunk) in compiler::mlir::split_input_file(&text) {
            match compiler::mlir::parse(chunk) {
                Ok(m) => match compiler::handshake::find_func(&m.ops) {
                    Ok(f) => match compiler::handshake::mark(f, &Default::default()) {
                        Ok(marks) => eprintln!("{}: {} marks", p.display(), marks.len()),
                        Err(d) => eprint!("MARK {}", d.shifted(off as i64).render(&p.display().to_string(), &text)),
                    },
                    Err(d) => eprint!("FUNC {}", d.shifted(off as i64).render(&p.display().to_string(), &text)),
                },
                Err(d) => eprint!("PARSE {}", d.shifted(off as i64).render(&p.display().to_string(), &text)),
            }
        }
    }
}
