//! `mappings/EXPECTED.tsv`, the expected verdict of every mapping per source axiom, as the tests
//! read it.

/// One row of the file: axiom, bound, verdict.
pub type Row = (String, usize, String);

/// The rows by mapping, in file order.
pub fn expected() -> Vec<(String, Vec<Row>)> {
    let text = std::fs::read_to_string("mappings/EXPECTED.tsv").unwrap();
    let mut out: Vec<(String, Vec<Row>)> = vec![];
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [map, axiom, bound, verdict] = cols[..] else {
            panic!("EXPECTED.tsv: not four columns: {line:?}");
        };
        let row = (
            axiom.to_string(),
            bound.parse().unwrap(),
            verdict.to_string(),
        );
        match out.last_mut() {
            Some((m, rows)) if m == map => rows.push(row),
            _ => out.push((map.to_string(), vec![row])),
        }
    }
    out
}
