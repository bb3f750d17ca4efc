//! STRING tensors at compile time. Everything that moves, folds or gathers a constant treats an
//! element as a fixed number of bytes, so a constant string tensor's element is the string's
//! index in one process-wide table (8 bytes, like the `const char *` it becomes at run time).
//! Equal strings share an index, so a folded Equal compares indices. The emitted code never sees
//! an index: [`crate::emit::Emitter`] writes a constant's strings into the library and its
//! elements as their addresses.

use crate::graph::{DType, Tensor, TensorType};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

#[derive(Default)]
struct Table {
    strings: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, i64>,
}

static TABLE: LazyLock<Mutex<Table>> = LazyLock::new(Mutex::default);

/// The index of `s` in the table (added on first sight).
pub fn intern(s: &[u8]) -> i64 {
    let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&i) = t.index.get(s) {
        return i;
    }
    let i = t.strings.len() as i64;
    t.strings.push(s.to_vec());
    t.index.insert(s.to_vec(), i);
    i
}

/// The string at `index`.
pub fn text(index: i64) -> Vec<u8> {
    let t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    t.strings.get(index as usize).cloned().unwrap_or_default()
}

/// The element bytes of a constant holding `strings`.
pub fn table_of(strings: &[Vec<u8>]) -> Vec<u8> {
    strings.iter().flat_map(|s| intern(s).to_le_bytes()).collect()
}

/// A constant STRING tensor.
pub fn tensor(shape: Vec<usize>, strings: &[Vec<u8>]) -> Tensor {
    Tensor { ty: TensorType::new(DType::Str, shape), data: table_of(strings) }
}

/// The strings of a constant STRING tensor, in row-major order.
pub fn values(t: &Tensor) -> Vec<Vec<u8>> {
    t.data.chunks_exact(8).map(|c| text(i64::from_le_bytes(c.try_into().expect("8 bytes")))).collect()
}

/// `strings` one after the other, each with its terminating NUL: how the library holds a list of
/// constant strings, and how the runtime's lookups take one.
pub fn joined(strings: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for s in strings {
        bytes.extend_from_slice(s);
        bytes.push(0);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_share_an_index_and_come_back() {
        let t = tensor(vec![3], &[b"a".to_vec(), b"\xe7\x9a\x84".to_vec(), b"a".to_vec()]);
        assert_eq!(t.data[..8], t.data[16..]);
        assert_ne!(t.data[..8], t.data[8..16]);
        assert_eq!(values(&t), vec![b"a".to_vec(), "的".as_bytes().to_vec(), b"a".to_vec()]);
        assert_eq!(joined(&values(&t)), b"a\0\xe7\x9a\x84\0a\0");
    }
}
