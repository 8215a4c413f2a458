//! The dictionary's `dicrc`, read like MeCab's `Param::load`: lines that are empty or start
//! with `;` or `#` are skipped, every other line must contain `=`; the key is what precedes it
//! without trailing blanks, the value what follows it without leading blanks; the first
//! occurrence of a key wins.

use std::collections::HashMap;
use std::path::Path;

pub fn read(path: &Path) -> Result<HashMap<String, String>, String> {
    let bytes = crate::tokenize::model_file::read(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&String::from_utf8_lossy(&bytes)).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    for line in text.split('\n') {
        if line.is_empty() || line.starts_with([';', '#']) {
            continue;
        }
        let Some(eq) = line.find('=') else {
            return Err(format!("format error: {line}"));
        };
        let key = line[..eq].trim_end_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
        let value =
            line[eq + 1..].trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
        map.entry(key.to_owned())
            .or_insert_with(|| value.to_owned());
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    #[test]
    fn param_load_rules() {
        let m = super::parse("; c\n# c\n\nk = v \nk = w\n a=b").unwrap();
        assert_eq!(m["k"], "v ");
        assert_eq!(m[" a"], "b");
        assert!(super::parse("novalue\n").is_err());
    }
}
