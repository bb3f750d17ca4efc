//! The weight blob files of an ML Program (`weights/weight.bin`), in MIL's blob-storage format:
//! a 64-byte header (`u32` blob count, `u32` version 2, reserved), then for each blob a 64-byte
//! metadata record (`u32` sentinel `0xDEADBEEF`, `u32` data type, `u64` size in bytes, `u64`
//! offset of the data, `u64` padding in bits, reserved) and its data, all little-endian.
//! A program's `BlobFileValue` names the file and the offset of the blob's metadata.
//!
//! Every offset and size is checked against the file, and the blob's type against the type the
//! program declares for the value, before a byte is used.

use crate::package;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const HEADER_BYTES: usize = 64;
const METADATA_BYTES: usize = 64;
const SENTINEL: u32 = 0xDEAD_BEEF;

/// The blob-storage data types (`BlobDataType`), with their bits per element.
pub fn blob_type_name(code: u32) -> Option<(&'static str, usize)> {
    Some(match code {
        1 => ("float16", 16),
        2 => ("float32", 32),
        3 => ("uint8", 8),
        4 => ("int8", 8),
        5 => ("bfloat16", 16),
        6 => ("int16", 16),
        7 => ("uint16", 16),
        8 => ("int4", 4),
        9 => ("uint1", 1),
        10 => ("uint2", 2),
        11 => ("uint4", 4),
        12 => ("uint3", 3),
        13 => ("uint6", 6),
        14 => ("int32", 32),
        15 => ("uint32", 32),
        _ => return None,
    })
}

/// The blob files of one model, read once each.
pub struct BlobFiles {
    root: PathBuf,
    model_dir: PathBuf,
    files: RefCell<HashMap<PathBuf, std::rc::Rc<Vec<u8>>>>,
}

impl BlobFiles {
    pub fn new(root: &Path, model_dir: &Path) -> BlobFiles {
        BlobFiles { root: root.to_path_buf(), model_dir: model_dir.to_path_buf(), files: RefCell::default() }
    }

    /// The data of the blob whose metadata is at `offset` in `file_name`, which must hold
    /// `expected` (a blob type code) and be `bytes` long.
    pub fn read(&self, file_name: &str, offset: u64, expected: u32, bytes: usize) -> Result<Vec<u8>, String> {
        let file = self.file(file_name)?;
        let at = |what: &str| format!("blob file '{file_name}', blob at offset {offset}: {what}");
        if file.len() < HEADER_BYTES {
            return Err(at(&format!("the file is {} bytes, shorter than its 64-byte header", file.len())));
        }
        let version = u32_at(&file, 4);
        if !(1..=2).contains(&version) {
            return Err(at(&format!("unknown blob storage version {version}")));
        }
        let start = usize::try_from(offset).ok().filter(|&o| o >= HEADER_BYTES && o <= file.len() - METADATA_BYTES);
        let Some(start) = start else {
            return Err(at(&format!("the offset is past the file's end ({} bytes)", file.len())));
        };
        if u32_at(&file, start) != SENTINEL {
            return Err(at("no blob metadata there (the sentinel 0xDEADBEEF is missing)"));
        }
        let code = u32_at(&file, start + 4);
        if code != expected {
            let name = |c| blob_type_name(c).map_or(format!("unknown type {c}"), |(n, _)| n.to_string());
            return Err(at(&format!("the blob holds {}, but the program declares {}", name(code), name(expected))));
        }
        let size = u64_at(&file, start + 8);
        let data = u64_at(&file, start + 16);
        if size != bytes as u64 {
            return Err(at(&format!("the blob is {size} bytes, but its value needs {bytes}")));
        }
        let end = data.checked_add(size).filter(|&e| e <= file.len() as u64);
        let Some(end) = end else {
            return Err(at(&format!(
                "its data ({size} bytes at {data}) runs past the file's end ({} bytes)",
                file.len()
            )));
        };
        Ok(file[data as usize..end as usize].to_vec())
    }

    fn file(&self, file_name: &str) -> Result<std::rc::Rc<Vec<u8>>, String> {
        let Some(rel) = file_name.strip_prefix("@model_path/") else {
            return Err(format!("blob file '{file_name}': xcc reads blob files under @model_path/ only"));
        };
        let path = package::inside(&self.root, &self.model_dir, rel, "blob file")?;
        if let Some(f) = self.files.borrow().get(&path) {
            return Ok(f.clone());
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read blob file '{file_name}': {e}"))?;
        let f = std::rc::Rc::new(bytes);
        self.files.borrow_mut().insert(path, f.clone());
        Ok(f)
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
