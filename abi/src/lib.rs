//! The C interface of a compiled model, for every frontend: what a model's header describes
//! ([`ModelInterface`]: its tensors as C sees them, the dims left to run time, the checks and
//! buffers its run functions promise) and the header written from it ([`header()`]). The ONNX
//! frontend (and the Core ML one, through it) describes a model; the driver writes the header.

mod header;

pub use header::header;

/// How the bytes of an element hold it, where C has no name for its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    /// A C type holds it (`float`, `int64_t`, `bool`, `uint16_t` for float16).
    Plain,
    /// A value of fewer than 8 bits, one per byte (int4, uint2, float4).
    Packed,
    /// A float8's 8-bit code.
    Float8,
    /// A NUL-terminated UTF-8 string, by pointer.
    String,
}

/// A tensor's element type as the header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// ONNX's name (`float32`, `int4`, `string`).
    pub name: &'static str,
    /// The C type of one element in memory.
    pub c_type: &'static str,
    /// Bytes per element in memory.
    pub bytes: usize,
    pub kind: ElementKind,
}

impl Element {
    /// An input parameter's declaration: `const float *x`; `const char *const *x` for strings.
    pub fn c_input(&self, id: &str) -> String {
        match self.kind {
            ElementKind::String => format!("const char *const *{id}"),
            _ => format!("const {} *{id}", self.c_type),
        }
    }
}

/// One dim of a tensor: its value as a C expression of the dims left to run time, and those dims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dim {
    pub c: String,
    pub symbols: Vec<String>,
    /// The value, where no symbol is in it.
    pub fixed: Option<usize>,
}

/// A tensor of the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub element: Element,
    pub dims: Vec<Dim>,
}

impl Tensor {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Whether some dim is known only at run time.
    pub fn is_dynamic(&self) -> bool {
        self.dims.iter().any(|d| d.fixed.is_none())
    }

    /// Elements of a static tensor (0 for a dynamic one).
    pub fn numel(&self) -> usize {
        self.dims.iter().map(|d| d.fixed.unwrap_or(0)).product()
    }
}

/// What the C header describes.
#[derive(Clone, Debug)]
pub struct ModelInterface {
    pub name: String,
    pub inputs: Vec<(String, Tensor)>,
    pub outputs: Vec<(String, Tensor)>,
    /// The dims left to run time, in the order the run functions take them (`int64_t` each).
    pub symbols: Vec<String>,
    /// The model's name of each of [`ModelInterface::symbols`] where it is not the C name (a
    /// `dim_param` with characters C names cannot have, or one whose C name another took).
    pub symbol_sources: Vec<Option<String>>,
    /// The dims the run computes (from input data, or from the dims by a floor division or a
    /// minimum), with their definitions as text: `NAME_output_dims` reports the outputs' dims.
    pub data_dims: Vec<(String, String)>,
    /// What the run checks once it computes those dims, as text, in the order of
    /// `NAME_failed_check`'s answer (the header's `NAME_check_conditions`).
    pub conditions: Vec<String>,
    /// `(output, input)` pairs that may be one buffer: a KV cache the run appends to in place
    /// (ONNX Runtime GenAI's shared buffer; the ONNX frontend's CacheWrite).
    pub shared_buffers: Vec<(usize, usize)>,
    /// `(output, input)` pairs that must not be one buffer: a plain export's KV cache, whose
    /// present is `Concat(past, new)` (`XCC_ERROR_ALIASED_BUFFERS`).
    pub separate_buffers: Vec<(usize, usize)>,
    /// The inputs whose elements decide dims or conditions on them (a Reshape's shape input),
    /// by name: what `--bind` would freeze. When there are any, the size functions and
    /// `NAME_output_dims` take the inputs ([`ModelInterface::reads_shape_inputs`]).
    pub shape_inputs: Vec<String>,
    /// Whether the run computes dims the header cannot write as expressions of the symbols (read
    /// from data, or a floor division or minimum of dims): then the header has
    /// `NAME_output_dims`.
    pub computes_dims: bool,
    /// `(min, max)` of each symbol given a range (`--dim seq=1..2048`), in `symbols`' order.
    pub ranges: Vec<Option<(usize, usize)>>,
    /// Whether every symbol has a range, so that `NAME_workspace_size_max()` exists.
    pub workspace_size_max: bool,
    /// Known once `plan-workspace` has run (the run function's `xcc.workspace_bytes`).
    pub workspace_bytes: usize,
    /// A classifier's class labels, indexed by its label output (a Core ML classifier's).
    pub class_labels: Vec<String>,
    /// The outputs whose dims the run finds (NonZero's count): `NAME_output_dims` gives their
    /// capacity, and the run writes their dims to an array after the output pointers.
    pub found_outputs: Vec<usize>,
    /// Whether some tensor's dims are found by the run (an output's or not).
    pub finds_dims: bool,
    /// Whether the model has STRING tensors (its run then keeps a string arena).
    pub uses_strings: bool,
    /// Per input, whether it is optional: the caller may pass NULL for none.
    pub optional_inputs: Vec<bool>,
}

impl ModelInterface {
    /// Whether a run reads inputs that decide shapes (data dims, or conditions on shape inputs
    /// alone).
    pub fn reads_shape_inputs(&self) -> bool {
        !self.shape_inputs.is_empty()
    }
}

/// The symbol of a model's compute function (the run functions' body; a GPU model's launches).
pub fn compute_symbol(name: &str) -> String {
    format!("{name}_compute")
}

/// A C name from a model's name (the prefix of its functions and macros): other characters
/// become `_`, a leading digit gets one before it, and a C or C++ keyword one after it (`int` is
/// `int_`).
pub fn c_name(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if KEYWORDS.binary_search(&s.as_str()).is_ok() {
        s.push('_');
    }
    s
}

/// A C identifier for a tensor or dim, as the header's declarations name it: [`c_name`], and
/// then a name the header or a C program may already use as a macro, type or parameter gets `_`
/// after it (`NULL_`, `linux_`, `dims_`, `int64_t_`, `M_NUM_INPUTS_`), and one reserved to the
/// implementation (`_Bool`, `__LINE__`) `x` before it, so that the header compiles as C and C++
/// whatever the model names.
pub fn c_identifier(name: &str) -> String {
    let mut s = c_name(name);
    let mut chars = s.chars();
    if chars.next() == Some('_') && chars.next().is_some_and(|c| c == '_' || c.is_ascii_uppercase()) {
        s.insert(0, 'x');
    }
    if taken_in_c(&s) {
        s.push('_');
    }
    s
}

/// Whether a C program that includes the header may already use `s`: the header's own types,
/// parameters and macros, the macros and types of the standard headers it includes or that a
/// program often does, and the platforms' predefined macros.
fn taken_in_c(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "EOF",
        "NULL",
        "errno",
        "i386",
        "linux",
        "unix",
        "dims",
        "workspace",
        "options",
        "context",
        "stream",
        "size_t",
        "ptrdiff_t",
        "max_align_t",
        "intptr_t",
        "uintptr_t",
        "intmax_t",
        "uintmax_t",
        "offsetof",
    ];
    if WORDS.contains(&s) || s.starts_with("xcc_") || s.starts_with("XCC_") {
        return true;
    }
    // `int64_t`, `uint_fast8_t`, ...: <stdint.h>'s types.
    let integer_type = s.strip_suffix("_t").is_some_and(|t| t.trim_start_matches('u').starts_with("int"));
    let upper = s.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    // <stdint.h>'s limits and constant macros (`INT64_MAX`, `SIZE_MAX`, `UINT8_C`), and the
    // header's own macros (`M_NUM_INPUTS`, `M_INPUT0_SIZE`, `M_DIM1_NAME`).
    let limit = upper && (s.ends_with("_MAX") || s.ends_with("_MIN") || s.ends_with("_C"));
    integer_type || limit || (upper && is_header_macro(s))
}

/// Whether an upper-case name has the form of one of the header's macros, whatever the model's
/// name (its prefix).
fn is_header_macro(s: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "_CHECK_CONDITIONS",
        "_NUM_CLASSES",
        "_NUM_DIMS",
        "_NUM_INPUTS",
        "_NUM_OUTPUTS",
        "_WORKSPACE_SIZE",
        "_DIMS_FOUND",
        "_NAME",
        "_MODEL_NAME",
        "_RANK",
        "_SIZE",
        "_TYPE",
    ];
    SUFFIXES.iter().any(|suffix| s.ends_with(suffix))
}

/// The keywords of C23 and C++23 (and the alternative operator spellings), sorted.
const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "typeof_unqual",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_identifiers_avoid_keywords_and_leading_digits() {
        assert_eq!(c_identifier("int"), "int_");
        assert_eq!(c_identifier("class"), "class_");
        assert_eq!(c_identifier("a-b"), "a_b");
        assert_eq!(c_identifier("3d"), "_3d");
        assert_eq!(c_identifier(""), "_");
        assert_eq!(c_identifier("input_ids"), "input_ids");
        assert_eq!(c_name("linux"), "linux");
    }

    #[test]
    fn c_identifiers_avoid_the_names_a_c_program_may_use() {
        for (name, c) in [
            ("NULL", "NULL_"),
            ("linux", "linux_"),
            ("dims", "dims_"),
            ("int64_t", "int64_t_"),
            ("INT64_MAX", "INT64_MAX_"),
            ("xcc_run_options", "xcc_run_options_"),
            ("M_NUM_INPUTS", "M_NUM_INPUTS_"),
            ("M_INPUT0_SIZE", "M_INPUT0_SIZE_"),
            ("_Bool", "x_Bool"),
            ("__LINE__", "x__LINE__"),
            ("_x", "_x"),
            ("batch_size", "batch_size"),
            ("X", "X"),
            ("seq", "seq"),
        ] {
            assert_eq!(c_identifier(name), c, "{name}");
        }
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]), "KEYWORDS is sorted");
    }
}
