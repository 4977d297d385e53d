//! The Starlark engine of one ytt package, on starlark-rust: compiles each
//! file's code once (ytt's dialect translated by `translate`), provides the
//! `@ytt:` modules rules use, loads the package's own `.star` and `.lib.yml`
//! files (never anything outside the package), evaluates annotation
//! arguments in their file's scope and calls rule functions with a
//! statement budget, so an endless loop becomes a finding, not a hang.

use super::starlark::ytt_struct::YttStruct;
use super::starlark::{CallArgs, StarError, StarValue, to_star_value_owned};
use super::template::runtime::{SessionGuard, SharedSession};
use super::translate::{Translated, star_code_lines, translate, yaml_code_lines};
use starlark::environment::{FrozenModule, Globals, GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::{BeforeStmtFuncDyn, Evaluator, FileLoader};
use starlark::syntax::{AstModule, Dialect};
use starlark::values::dict::AllocDict;
use starlark::values::list::AllocList;
use starlark::values::{Heap, OwnedFrozenValue, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Statements one rule call may run before it is stopped.
pub const STATEMENT_BUDGET: usize = 1_000_000;

const ASSERT_MODULE: &str = r#"
def _fail(msg):
    fail(msg)

def _min(n):
    def check(v):
        if not (v >= n):
            fail("value < {}".format(n))
    return struct(check=check)

def _max(n):
    def check(v):
        if not (v <= n):
            fail("value > {}".format(n))
    return struct(check=check)

def _min_len(n):
    def check(v):
        if not (len(v) >= n):
            fail("length = {}".format(len(v)))
    return struct(check=check)

def _max_len(n):
    def check(v):
        if not (len(v) <= n):
            fail("length = {}".format(len(v)))
    return struct(check=check)

def _not_null(enabled=True):
    def check(v):
        if enabled and v == None:
            fail("value is null")
    return struct(check=check)

def _one_of(*args):
    values = args[0] if len(args) == 1 and type(args[0]) in ("list", "tuple") else args
    def check(v):
        if v not in values:
            fail("not one of allowed values")
    return struct(check=check)

def _one_not_null(keys=True):
    def check(v):
        names = [k for k in v] if keys == True else keys
        set_keys = [k for k in names if k in v and v[k] != None]
        if len(v) == 0:
            fail("value is empty")
        if len(set_keys) == 0:
            fail("all values are null")
        if len(set_keys) > 1:
            fail("{} are not null".format(set_keys))
    return struct(check=check)

def _rule(test, message):
    def check(v):
        if not test(v):
            fail(message(v))
    return struct(check=check)

def _format(name):
    return _rule(lambda v: ytt_format_valid(name, v), lambda v: "{} is not a valid {}".format(v, name))

def _starts_with(prefix):
    return _rule(lambda v: v.startswith(prefix), lambda v: "{} does not start with {}".format(v, prefix))

def _ends_with(suffix):
    return _rule(lambda v: v.endswith(suffix), lambda v: "{} does not end with {}".format(v, suffix))

def _contains(item):
    return _rule(lambda v: item in v, lambda v: "{} does not contain {}".format(v, item))

def _matches(pattern):
    return _rule(lambda v: ytt_regexp_match(pattern, v), lambda v: "{} does not match {}".format(v, pattern))

def _even():
    return _rule(lambda v: v % 2 == 0, lambda v: "{} is odd".format(v))

def _odd():
    return _rule(lambda v: v % 2 == 1, lambda v: "{} is even".format(v))

def _multiple_of(n):
    return _rule(lambda v: v % n == 0, lambda v: "{} is not a multiple of {}".format(v, n))

def _len(n):
    return _rule(lambda v: len(v) == n, lambda v: "length = {}".format(len(v)))

assert_ = struct(
    fail=_fail,
    try_to=ytt_try_to,
    format=_format,
    starts_with=_starts_with,
    ends_with=_ends_with,
    contains=_contains,
    matches=_matches,
    even=_even,
    odd=_odd,
    multiple_of=_multiple_of,
    len=_len,
    min=_min,
    max=_max,
    min_len=_min_len,
    max_len=_max_len,
    not_null=_not_null,
    one_of=_one_of,
    one_not_null=_one_not_null,
)
"#;

const BUILTINS_MODULE: &str = r#"
builtin_struct = struct
"#;

// `struct` is rebound at the top of this module, so the builtin comes
// from another module.
const STRUCT_MODULE: &str = r#"
def _bind(f, receiver):
    return lambda *args, **kwargs: f(receiver, *args, **kwargs)

def _make_and_bind(receiver, **kwargs):
    return ytt_struct_make(**{k: _bind(v, receiver) for k, v in kwargs.items()})

struct = ytt_struct_make(make=ytt_struct_make, make_and_bind=_make_and_bind, encode=ytt_struct_encode, decode=ytt_struct_decode)
"#;

const TEMPLATE_MODULE: &str = r#"
template = ytt_struct_make(replace=ytt_template_replace)
"#;

const REGEXP_MODULE: &str = r#"
regexp = struct(match=ytt_regexp_match, replace=ytt_regexp_replace)
"#;

const OVERLAY_MODULE: &str = r#"
def _matcher(*args, **kwargs):
    return None

overlay = struct(
    subset=_matcher, all=_matcher, map_key=_matcher, index=_matcher,
    and_op=_matcher, or_op=_matcher, not_op=_matcher,
)
"#;

const JSON_MODULE: &str = r#"
json = struct(encode=ytt_json_encode, decode=ytt_json_decode)
"#;

const YAML_MODULE: &str = r#"
yaml = struct(encode=ytt_yaml_encode, decode=ytt_yaml_decode)
"#;

const BASE64_MODULE: &str = r#"
base64 = struct(encode=ytt_base64_encode, decode=ytt_base64_decode)
"#;

const URL_MODULE: &str = r#"
url = struct(
    path_segment_encode=ytt_url_path_segment_encode,
    path_segment_decode=ytt_url_decode,
    query_param_value_encode=ytt_url_query_encode,
    query_param_value_decode=ytt_url_decode,
)
"#;

const IP_MODULE: &str = r#"
def _parse_addr(text):
    if not ytt_ip_valid(text):
        fail("invalid IP address: {}".format(text))
    return struct(is_ipv4=lambda: ":" not in text, is_ipv6=lambda: ":" in text, string=lambda: text)

def _parse_cidr(text):
    parts = text.split("/")
    if len(parts) != 2 or not ytt_ip_valid(parts[0]):
        fail("invalid CIDR: {}".format(text))
    return struct(addr=lambda: _parse_addr(parts[0]), string=lambda: text)

ip = struct(parse_addr=_parse_addr, parse_cidr=_parse_cidr)
"#;

const HASH_MODULES: &str = r#"
sha256 = struct(sum=ytt_sha256)
md5 = struct(sum=ytt_md5)
"#;

const VERSION_MODULE: &str = r#"
def _require_at_least(version):
    return None

version = struct(require_at_least=_require_at_least)
"#;

#[starlark::starlark_module]
fn ytt_natives(builder: &mut GlobalsBuilder) {
    /// `assert.try_to(f)`: `(result, None)`, or `(None, error text)`.
    fn ytt_try_to<'v>(f: Value<'v>, eval: &mut Evaluator<'v, '_, '_>) -> anyhow::Result<Value<'v>> {
        let heap = eval.heap();
        let pair = match eval.eval_function(f, &[], &[]) {
            Ok(v) => (v, Value::new_none()),
            Err(e) => (
                Value::new_none(),
                heap.alloc(first_line(&e.without_diagnostic().to_string())),
            ),
        };
        Ok(heap.alloc(starlark::values::tuple::AllocTuple([pair.0, pair.1])))
    }

    /// `json.encode(value)`: structs and fragments as maps, as ytt encodes.
    fn ytt_json_encode<'v>(value: Value<'v>) -> anyhow::Result<String> {
        let node = super::starlark::convert::value_to_node(value, no_span())
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(crate::yaml::emit::to_json(&node).to_string())
    }

    /// `struct.make(**fields)`.
    fn ytt_struct_make<'v>(
        #[starlark(kwargs)] fields: starlark::values::dict::DictRef<'v>,
    ) -> anyhow::Result<YttStruct<'v>> {
        Ok(YttStruct::new(
            fields
                .iter()
                .map(|(k, v)| (k.unpack_str().unwrap_or_default().to_string(), v))
                .collect(),
        ))
    }

    /// `struct.encode(value)`: structs become dicts, all the way down.
    fn ytt_struct_encode<'v>(value: Value<'v>, heap: Heap<'v>) -> anyhow::Result<Value<'v>> {
        let node = super::starlark::convert::value_to_node(value, no_span())
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(super::starlark::convert::node_to_plain_value(&node, heap))
    }

    /// `struct.decode(value)`: dicts become structs, all the way down.
    fn ytt_struct_decode<'v>(value: Value<'v>, heap: Heap<'v>) -> anyhow::Result<Value<'v>> {
        let node = super::starlark::convert::value_to_node(value, no_span())
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(super::starlark::convert::node_to_struct_value(&node, heap))
    }

    /// `data.read(path)`: a file of the package, as text.
    fn ytt_data_read(path: &str) -> anyhow::Result<String> {
        super::template::runtime::read_package_file(path).map_err(|e| anyhow::anyhow!(e))
    }

    /// `data.list(path="")`: the package's files.
    fn ytt_data_list<'v>(
        #[starlark(require = pos, default = "")] path: &str,
        heap: Heap<'v>,
    ) -> anyhow::Result<Value<'v>> {
        let files =
            super::template::runtime::list_package_files(path).map_err(|e| anyhow::anyhow!(e))?;
        Ok(heap.alloc(files))
    }

    /// `json.decode(text)`.
    fn ytt_json_decode<'v>(text: &str, heap: Heap<'v>) -> anyhow::Result<Value<'v>> {
        let parsed: serde_json::Value = serde_json::from_str(text)?;
        Ok(alloc(heap, &json_to_star(&parsed)))
    }

    /// `yaml.encode(value)`, in ytt's output style.
    fn ytt_yaml_encode<'v>(value: Value<'v>) -> anyhow::Result<String> {
        let node = super::starlark::convert::value_to_node(value, no_span())
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(crate::yaml::emit::to_yaml(&node))
    }

    /// `yaml.decode(text)`, with go-yaml v2's scalars.
    fn ytt_yaml_decode<'v>(text: &str, heap: Heap<'v>) -> anyhow::Result<Value<'v>> {
        let set = crate::yaml::parse_file(crate::source::FileId(0), text, &Default::default())
            .map_err(|e| anyhow::anyhow!("yaml.decode: {}", e.message))?;
        let value = set
            .docs
            .first()
            .map_or(StarValue::None, |d| super::validate::node_to_star(&d.value));
        Ok(alloc(heap, &value))
    }

    /// `base64.encode(text)`.
    fn ytt_base64_encode(text: &str) -> anyhow::Result<String> {
        Ok(base64_encode(text.as_bytes()))
    }

    /// `base64.decode(text)`.
    fn ytt_base64_decode(text: &str) -> anyhow::Result<String> {
        let bytes = base64_decode(text).ok_or_else(|| anyhow::anyhow!("illegal base64 data"))?;
        String::from_utf8(bytes).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// `url.path_segment_encode(text)`.
    fn ytt_url_path_segment_encode(text: &str) -> anyhow::Result<String> {
        Ok(percent_encode(text, false))
    }

    /// `url.query_param_value_encode(text)`.
    fn ytt_url_query_encode(text: &str) -> anyhow::Result<String> {
        Ok(percent_encode(text, true))
    }

    /// Percent-decoding for `url.*_decode`.
    fn ytt_url_decode(text: &str) -> anyhow::Result<String> {
        percent_decode(text).ok_or_else(|| anyhow::anyhow!("invalid URL escape in {text:?}"))
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    fn ytt_ip_valid(text: &str) -> anyhow::Result<bool> {
        Ok(text.parse::<std::net::IpAddr>().is_ok())
    }

    /// `sha256.sum(text)`, hex.
    fn ytt_sha256(text: &str) -> anyhow::Result<String> {
        Ok(super::digest::sha256_hex(text.as_bytes()))
    }

    /// `md5.sum(text)`, hex.
    fn ytt_md5(text: &str) -> anyhow::Result<String> {
        Ok(super::digest::md5_hex(text.as_bytes()))
    }

    /// `regexp.match(pattern, text)` with Go RE2 meaning (unanchored).
    fn ytt_regexp_match(pattern: &str, text: &str) -> anyhow::Result<bool> {
        let re = regex::Regex::new(pattern).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(re.is_match(text))
    }

    /// `format=` of the seed design, for `assert.format(name)`.
    fn ytt_format_valid(name: &str, text: &str) -> anyhow::Result<bool> {
        Ok(super::formats::is_valid(name, text))
    }

    /// `regexp.replace(pattern, text, replacement)`.
    fn ytt_regexp_replace(pattern: &str, text: &str, replacement: &str) -> anyhow::Result<String> {
        let re = regex::Regex::new(pattern).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(re.replace_all(text, replacement).into_owned())
    }
}

/// Values converted by the modules have no place in a file.
fn no_span() -> crate::source::Span {
    crate::source::Span::new(crate::source::FileId(0), 0, 0)
}

fn dialect() -> Dialect {
    Dialect {
        enable_top_level_stmt: true,
        ..Dialect::Extended
    }
}

/// The most heap one evaluation may hold, checked between statements.
const HEAP_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// Stops evaluation after a number of statements, or once its heap has
/// grown past [`HEAP_LIMIT_BYTES`].
struct Budget {
    left: usize,
}

impl<'e> BeforeStmtFuncDyn<'e> for Budget {
    fn call<'v>(
        &mut self,
        _span: starlark::codemap::FileSpanRef,
        _continued: bool,
        eval: &mut Evaluator<'v, '_, 'e>,
    ) -> starlark::Result<()> {
        if self.left == 0 {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation stopped after {STATEMENT_BUDGET} statements (an endless loop?)"
            )));
        }
        self.left -= 1;
        // Memory that grows statement by statement (a loop appending to a
        // list, a string doubled in a loop) stops at the heap limit.
        if eval.heap().allocated_bytes() > HEAP_LIMIT_BYTES {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation stopped: its heap passed {} MiB",
                HEAP_LIMIT_BYTES / 1024 / 1024
            )));
        }
        Ok(())
    }
}

/// One package's Starlark world.
pub struct Engine {
    globals: Globals,
    root: PathBuf,
    /// Compiled modules by load path (`@ytt:assert`, `helpers/x.star`).
    modules: RefCell<HashMap<String, Result<FrozenModule, String>>>,
    /// Paths being loaded, to stop load cycles.
    loading: RefCell<Vec<String>>,
    /// The final data values as JSON, for templates' `data.values`; None
    /// where ytt gives an empty struct (schema and data-values files).
    data_values: Option<crate::yaml::Node>,
    /// The template nodes and contexts of this package's renders.
    session: SharedSession,
    known_files: HashMap<
        PathBuf,
        (
            crate::source::FileId,
            std::sync::Arc<crate::source::SourceFile>,
        ),
    >,
    fallback_file: crate::source::FileId,
    /// Set when the package is files named one by one: base name to path.
    flat_files: Option<HashMap<String, PathBuf>>,
    /// Each module's generated-line to source-line map, for call chains.
    line_maps: RefCell<HashMap<String, Vec<usize>>>,
}

/// Why running a module failed: the message, the 1-based line in the
/// module, whether its code does not parse, and the chain of places (module
/// name, 1-based line) from the outermost call to the failure.
#[derive(Debug, Clone)]
pub struct RunFailure {
    pub message: String,
    pub line: usize,
    pub is_syntax: bool,
    pub chain: Vec<(String, usize)>,
}

/// A compiled file, or why it failed (message, 1-based line, is_syntax).
pub type Compiled = Result<FrozenModule, (String, usize, bool)>;

impl Engine {
    pub fn new(root: &Path) -> Engine {
        let globals =
            GlobalsBuilder::extended_by(&[LibraryExtension::StructType, LibraryExtension::SetType])
                .with(ytt_natives)
                .with(super::template::instructions::template_instructions)
                .build();
        Engine {
            globals,
            root: root.to_path_buf(),
            modules: RefCell::new(HashMap::new()),
            loading: RefCell::new(Vec::new()),
            data_values: None,
            session: SharedSession::default(),
            known_files: HashMap::new(),
            fallback_file: crate::source::FileId(0),
            flat_files: None,
            line_maps: RefCell::new(HashMap::new()),
        }
    }

    /// An engine for templates: `data.values` holds `values` (a JSON
    /// document), maps as structs, as ytt gives them to templates.
    pub fn for_templates(root: &Path, values: &crate::yaml::Node) -> Engine {
        let engine = Engine {
            data_values: Some(values.clone()),
            ..Engine::new(root)
        };
        engine.session.borrow_mut().root = engine.root.clone();
        engine
    }

    /// The render session templates of this engine run in.
    pub fn session(&self) -> &SharedSession {
        &self.session
    }

    /// Run translated code as a module (for renders: a compiled template).
    pub fn run_module(
        &self,
        name: &str,
        translated: &Translated,
        dir: &Path,
    ) -> Result<FrozenModule, RunFailure> {
        self.run_detailed(name, translated, dir)
    }

    fn run(&self, name: &str, translated: &Translated, dir: &Path) -> Compiled {
        self.run_detailed(name, translated, dir)
            .map_err(|f| (f.message, f.line, f.is_syntax))
    }

    /// Run translated code as a module; a failure keeps its call chain.
    fn run_detailed(
        &self,
        name: &str,
        translated: &Translated,
        dir: &Path,
    ) -> Result<FrozenModule, RunFailure> {
        let _session = SessionGuard::install(&self.session);
        self.line_maps
            .borrow_mut()
            .insert(name.to_string(), translated.lines.clone());
        let loader = Loader {
            engine: self,
            dir: dir.to_path_buf(),
        };
        let ast = AstModule::parse(name, translated.source.clone(), &dialect()).map_err(|e| {
            let line = e
                .span()
                .map(|s| translated.original_line(s.resolve_span().begin.line))
                .unwrap_or(1);
            RunFailure {
                message: first_line(&e.without_diagnostic().to_string()),
                line,
                is_syntax: true,
                chain: Vec::new(),
            }
        })?;
        Module::with_temp_heap(|module| {
            let result = {
                let mut eval = sandboxed(&module, &loader);
                eval.eval_module(ast, &self.globals).map(|_| ())
            };
            if let Err(e) = result {
                // Calls from the outermost in, then the failing expression.
                let places: Vec<&starlark::codemap::FileSpan> = e
                    .call_stack()
                    .frames
                    .iter()
                    .filter_map(|f| f.location.as_ref())
                    .chain(e.span())
                    .collect();
                // The innermost place in this file: the failing expression,
                // else the call that led to a failure in another module.
                let line = places
                    .iter()
                    .rev()
                    .find(|l| l.filename() == name)
                    .map(|s| translated.original_line(s.resolve_span().begin.line))
                    .unwrap_or(1);
                let maps = self.line_maps.borrow();
                let chain = places
                    .iter()
                    .filter_map(|place| {
                        let generated = place.resolve_span().begin.line;
                        let lines = maps.get(place.filename())?;
                        let line = lines.get(generated).or(lines.last()).copied()?;
                        Some((place.filename().to_string(), line))
                    })
                    .collect();
                return Err(RunFailure {
                    message: first_line(&e.without_diagnostic().to_string()),
                    line,
                    is_syntax: false,
                    chain,
                });
            }
            module.freeze().map_err(|e| RunFailure {
                message: format!("{e:?}"),
                line: 1,
                is_syntax: false,
                chain: Vec::new(),
            })
        })
    }

    /// Compile the code lines of a ytt YAML file in directory `dir`.
    pub fn compile_yaml_file(&self, name: &str, text: &str, dir: &Path) -> Compiled {
        let translated =
            translate(&yaml_code_lines(text)).map_err(|e| (e.message, e.line, true))?;
        self.run(name, &translated, dir)
    }

    /// Where `load(path)` from a file in `dir` points: a built-in module, a
    /// path relative to `dir`, or `@lib:path` in a `_ytt_lib` above `dir`;
    /// never outside the package.
    fn resolve(&self, dir: &Path, path: &str) -> Result<String, String> {
        if path.starts_with("@ytt:") || path.starts_with("@confvet:") {
            return Ok(path.to_string());
        }
        // Files named one by one (`ytt -f a.yml -f lib/b.star`) are known by
        // their base names only, in one flat directory.
        if let Some(flat) = &self.flat_files {
            return flat
                .get(path)
                .map(|p| p.to_string_lossy().into_owned())
                .ok_or_else(|| {
                    format!("cannot load {path}: Expected to find file '{path}', but did not")
                });
        }
        // Inside the package by its path, and by where symbolic links on
        // the way lead: a link to code outside the package is refused as
        // `load("../..")` is (ytt refuses both).
        let canonical_root = self.root.canonicalize().ok();
        let inside = |p: &Path| -> Option<PathBuf> {
            let normalized = crate::source::normalize_path(p);
            if !normalized.starts_with(&self.root) {
                return None;
            }
            match (p.canonicalize(), &canonical_root) {
                (Ok(real), Some(root)) if !real.starts_with(root) => None,
                _ => Some(normalized),
            }
        };
        let found =
            if let Some((library, rest)) = path.strip_prefix('@').and_then(|p| p.split_once(':')) {
                dir.ancestors()
                    .take_while(|a| a.starts_with(&self.root))
                    .map(|a| a.join("_ytt_lib").join(library).join(rest))
                    .find(|candidate| candidate.is_file())
                    .and_then(|p| inside(&p))
            } else {
                // `/x.star` is relative to the package root (ytt's library
                // root), anything else to the loading file's directory.
                let base = match path.strip_prefix('/') {
                    Some(rest) => self.root.join(rest),
                    None => dir.join(path),
                };
                inside(&base).filter(|p| p.is_file())
            };
        found
            .map(|p| p.to_string_lossy().into_owned())
            .ok_or_else(|| format!("cannot load {path}: file not found in the package"))
    }

    fn load_path(&self, dir: &Path, path: &str) -> Result<FrozenModule, String> {
        let key = self.resolve(dir, path)?;
        if let Some(found) = self.modules.borrow().get(&key) {
            return found.clone();
        }
        if self.loading.borrow().contains(&key) {
            return Err(format!("cycle while loading {path:?}"));
        }
        self.loading.borrow_mut().push(key.clone());
        let result = self.compile_load(&key, path);
        self.loading.borrow_mut().pop();
        self.modules.borrow_mut().insert(key, result.clone());
        result
    }

    fn compile_load(&self, key: &str, path: &str) -> Result<FrozenModule, String> {
        let builtin = match path {
            "@ytt:assert" => Some(ASSERT_MODULE),
            "@ytt:struct" => Some(STRUCT_MODULE),
            "@ytt:regexp" => Some(REGEXP_MODULE),
            "@ytt:template" => Some(TEMPLATE_MODULE),
            "@ytt:overlay" => Some(OVERLAY_MODULE),
            "@confvet:builtins" => Some(BUILTINS_MODULE),
            "@ytt:json" => Some(JSON_MODULE),
            "@ytt:yaml" => Some(YAML_MODULE),
            "@ytt:base64" => Some(BASE64_MODULE),
            "@ytt:url" => Some(URL_MODULE),
            "@ytt:ip" => Some(IP_MODULE),
            "@ytt:sha256" | "@ytt:md5" => Some(HASH_MODULES),
            "@ytt:version" => Some(VERSION_MODULE),
            _ => None,
        };
        if path == "@ytt:data" {
            return self.data_module();
        }
        let builtin = builtin.map(str::to_string);
        let translated = if let Some(source) = builtin {
            Translated {
                source,
                lines: Vec::new(),
            }
        } else if key.starts_with('@') {
            return Err(format!("cannot load {path}: not a module confvet provides"));
        } else {
            let file = PathBuf::from(key);
            let bytes = crate::source::read_limited(&file)
                .map_err(|e| format!("cannot load {path}: {e}"))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("cannot load {path}: the file is not UTF-8 text"))?;
            if path.ends_with(".star") {
                translate(&star_code_lines(&text))
                    .map_err(|e| format!("{path}:{}: {}", e.line, e.message))?
            } else {
                self.compile_template_text(key, path, text)?
            }
        };
        let dir = Path::new(key).parent().unwrap_or(&self.root).to_path_buf();
        self.run(path, &translated, &dir)
            .map_err(|(message, line, _)| format!("{path}:{line}: {message}"))
    }

    /// A loaded YAML file (`.lib.yml`) compiled as a template of this
    /// engine's session.
    fn compile_template_text(
        &self,
        key: &str,
        path: &str,
        text: String,
    ) -> Result<Translated, String> {
        let (file, source) = match self.known_files.get(Path::new(key)) {
            Some((file, source)) => (*file, source.clone()),
            None => (
                self.fallback_file,
                std::sync::Arc::new(crate::source::SourceFile::new(path.to_string(), None, text)),
            ),
        };
        // A text template (`.lib.txt`): its functions return text.
        if path.ends_with(".txt") {
            let name = Path::new(key).file_name().unwrap_or_default();
            if !super::template::text::is_library(&name.to_string_lossy()) {
                return Err(format!(
                    "cannot load {path}: Expected file '{path}' to be a library file, but was not (hint: library filename must end with '.lib.yml' or '.star'; use data.read(...) for loading non-templated file contents)"
                ));
            }
            return super::template::text_program(&source, &self.session)
                .map(|p| p.translated)
                .map_err(|e| format!("{path}:{}: {}", e.line, e.message));
        }
        // Templates may repeat a key under `if`/`else` or in fragment functions.
        let options = crate::yaml::ParseOptions {
            keeps_duplicate_keys: true,
            ..Default::default()
        };
        let set = crate::yaml::parse_file(file, &source.text, &options)
            .map_err(|e| format!("{path}: {}", e.message))?;
        super::template::program(&set, &source, file, &self.session, Default::default())
            .map(|p| p.translated)
            .map_err(|e| format!("{path}:{}: {}", e.line, e.message))
    }

    /// `@ytt:data`: the final data values as structs (schema and data-values
    /// files see an empty struct), `data.read` and `data.list`.
    fn data_module(&self) -> Result<FrozenModule, String> {
        Module::with_temp_heap(|module| {
            let heap = module.heap();
            module.frozen_heap().add_reference(self.globals.heap());
            let values = match &self.data_values {
                Some(node) => super::starlark::convert::node_to_struct_value(node, heap),
                None => heap.alloc(YttStruct::new(Vec::new())),
            };
            let native = |name: &str| {
                self.globals
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_value())
                    .unwrap_or_else(Value::new_none)
            };
            let data = YttStruct::new(vec![
                ("values".into(), values),
                ("read".into(), native("ytt_data_read")),
                ("list".into(), native("ytt_data_list")),
            ]);
            module.set("data", heap.alloc(data));
            module.freeze().map_err(|e| format!("{e:?}"))
        })
    }

    /// The package is these files named one by one, not a directory.
    pub fn with_flat_files(mut self, files: &[PathBuf]) -> Engine {
        let by_name = files
            .iter()
            .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), p.clone())))
            .collect();
        self.flat_files = Some(by_name);
        self
    }

    /// Files of the package already read and parsed: loads use their ids,
    /// so positions in loaded templates point into them.
    pub fn with_known_files(
        mut self,
        files: HashMap<
            PathBuf,
            (
                crate::source::FileId,
                std::sync::Arc<crate::source::SourceFile>,
            ),
        >,
        fallback: crate::source::FileId,
    ) -> Engine {
        self.known_files = files;
        self.fallback_file = fallback;
        self
    }

    /// Evaluate annotation arguments in the scope of `module` (a file's code).
    pub fn eval_args(
        &self,
        module: Option<&FrozenModule>,
        args: &str,
    ) -> Result<CallArgs, StarError> {
        if args.trim().is_empty() {
            return Ok(CallArgs::default());
        }
        if let Some((_, message)) = super::translate::nesting_error(args) {
            return Err(StarError {
                message,
                offset: None,
                is_syntax: true,
            });
        }
        let prefix = "def confvet_capture_(*args, **kwargs):\n    return (args, kwargs)\nconfvet_args_ = confvet_capture_(";
        let program = format!("{prefix}{}\n)\n", super::translate::rename_assert(args));
        let ast = AstModule::parse("annotation", program, &dialect()).map_err(|e| StarError {
            message: first_line(&e.without_diagnostic().to_string()),
            offset: e
                .span()
                .map(|s| (s.span.begin().get() as usize).saturating_sub(prefix.len())),
            is_syntax: true,
        })?;
        let _session = SessionGuard::install(&self.session);
        let frozen = Module::with_temp_heap(|m| {
            if let Some(scope) = module {
                m.import_public_symbols(scope);
            }
            let result = {
                let mut eval = sandboxed(&m, self);
                eval.eval_module(ast, &self.globals).map(|_| ())
            };
            result.map_err(|e| StarError {
                message: first_line(&e.without_diagnostic().to_string()),
                offset: None,
                is_syntax: false,
            })?;
            m.freeze().map_err(|e| StarError {
                message: format!("{e:?}"),
                offset: None,
                is_syntax: false,
            })
        })?;
        let captured = frozen.get("confvet_args_").map_err(|e| StarError {
            message: e.to_string(),
            offset: None,
            is_syntax: false,
        })?;
        let value = captured.value();
        let pair =
            starlark::values::tuple::TupleRef::from_value(value).map(|t| t.content().to_vec());
        let Some([args, kwargs]) = pair.as_deref() else {
            return Ok(CallArgs::default());
        };
        let positional = starlark::values::tuple::TupleRef::from_value(*args)
            .map(|t| {
                t.content()
                    .iter()
                    .map(|v| to_star_value_owned(*v, &captured, 0))
                    .collect()
            })
            .unwrap_or_default();
        let named = starlark::values::dict::DictRef::from_value(*kwargs)
            .map(|d| {
                d.iter()
                    .map(|(k, v)| {
                        (
                            k.unpack_str().unwrap_or_default().to_string(),
                            to_star_value_owned(v, &captured, 0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(CallArgs { positional, named })
    }

    /// The Starlark type name of a frozen value.
    pub fn type_of(&self, value: &OwnedFrozenValue) -> String {
        value.value().get_type().to_string()
    }

    /// Call a rule: a function, or an object's `check` (assertion objects,
    /// structs). Ok is the returned value; Err the error text.
    pub fn call(
        &self,
        callee: &OwnedFrozenValue,
        args: &[&StarValue],
        named: &[(&str, &StarValue)],
    ) -> Result<StarValue, String> {
        let _session = SessionGuard::install(&self.session);
        Module::with_temp_heap(|module| {
            let heap = module.heap();
            let mut f = in_module(&module, callee);
            if !is_function(f) {
                f = match f.get_attr("check", heap) {
                    Ok(Some(check)) => check,
                    _ => return Err(format!("{} is not callable and has no check", f.get_type())),
                };
            }
            let positional: Vec<Value> = args.iter().map(|a| alloc(heap, a)).collect();
            let named: Vec<(&str, Value)> =
                named.iter().map(|(k, v)| (*k, alloc(heap, v))).collect();
            let mut eval = sandboxed(&module, self);
            match eval.eval_function(f, &positional, &named) {
                Ok(v) => Ok(super::starlark::to_star_value(v, 0)),
                Err(e) => Err(first_line(&e.without_diagnostic().to_string())),
            }
        })
    }

    /// Call a `when=` predicate as ytt does: with `(value, ctx)` when it
    /// takes two parameters, `(value)` when it takes one; `ctx` has `parent`
    /// and `root`. Err says why it could not be evaluated.
    pub fn call_when(
        &self,
        callee: &OwnedFrozenValue,
        value: &StarValue,
        parent: &StarValue,
        root: &StarValue,
    ) -> Result<StarValue, String> {
        let arity = Module::with_temp_heap(|module| {
            let f = in_module(&module, callee);
            parameter_count(f)
        });
        match arity {
            Some(1) => self.call(callee, &[value], &[]),
            Some(2) => Module::with_temp_heap(|module| {
                let heap = module.heap();
                let f = in_module(&module, callee);
                let ctx = heap.alloc(starlark::values::structs::AllocStruct([
                    ("parent", alloc(heap, parent)),
                    ("root", alloc(heap, root)),
                ]));
                let mut eval = sandboxed(&module, self);
                match eval.eval_function(f, &[alloc(heap, value), ctx], &[]) {
                    Ok(v) => Ok(super::starlark::to_star_value(v, 0)),
                    Err(e) => Err(first_line(&e.without_diagnostic().to_string())),
                }
            }),
            Some(n) => Err(format!(
                "Failed to evaluate when=: function must accept 1 or 2 arguments ({n} given)"
            )),
            None => self.call(callee, &[value], &[]),
        }
    }
}

/// The number of parameters of a def or lambda, read from its signature.
fn parameter_count(value: Value<'_>) -> Option<usize> {
    // `<function name>` reprs carry no signature; documentation does.
    let doc = value.documentation();
    match doc {
        starlark::docs::DocItem::Member(starlark::docs::DocMember::Function(f)) => {
            let p = &f.params;
            Some(p.pos_only.len() + p.pos_or_named.len())
        }
        _ => None,
    }
}

/// An evaluator with ytt's limits: loads through `loader` only, a bounded
/// call stack (recursion ends there) and the statement budget.
fn sandboxed<'v, 'a, 'e>(
    module: &'a Module<'v>,
    loader: &'a dyn FileLoader,
) -> Evaluator<'v, 'a, 'e> {
    let mut eval = Evaluator::new(module);
    eval.set_loader(loader);
    let _ = eval.set_max_callstack_size(100);
    eval.before_stmt_for_dap(starlark::eval::BeforeStmtFunc::from_dyn(Box::new(Budget {
        left: STATEMENT_BUDGET,
    })));
    eval
}

/// A frozen value usable in `module`.
fn in_module<'v>(module: &Module<'v>, value: &OwnedFrozenValue) -> Value<'v> {
    // SAFETY: the module's frozen heap takes a reference to the value's
    // owner, so the value lives as long as the module that uses it.
    unsafe { value.owned_frozen_value(module.frozen_heap()) }.to_value()
}

fn is_function(value: Value<'_>) -> bool {
    matches!(
        value.get_type(),
        "function" | "builtin_function_or_method" | "native_function"
    )
}

/// The engine with each file's compiled code: where annotations are evaluated.
pub struct Code<'a> {
    pub engine: &'a Engine,
    pub scopes: &'a HashMap<crate::source::FileId, FrozenModule>,
}

impl Code<'_> {
    /// Evaluate annotation arguments in the scope of the file they are in.
    pub fn eval_args(
        &self,
        args: &str,
        file: crate::source::FileId,
    ) -> Result<CallArgs, StarError> {
        self.engine.eval_args(self.scopes.get(&file), args)
    }
}

/// Loads for code in one directory (ytt resolves loads from the loading file).
struct Loader<'a> {
    engine: &'a Engine,
    dir: PathBuf,
}

impl FileLoader for Loader<'_> {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.engine
            .load_path(&self.dir, path)
            .map_err(|e| starlark::Error::new_other(anyhow::anyhow!(e)))
    }
}

impl FileLoader for Engine {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.load_path(&self.root, path)
            .map_err(|e| starlark::Error::new_other(anyhow::anyhow!(e)))
    }
}

fn first_line(message: &str) -> String {
    let text = message.trim();
    let line = text.lines().next().unwrap_or("").trim();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

fn json_to_star(value: &serde_json::Value) -> StarValue {
    match value {
        serde_json::Value::Null => StarValue::None,
        serde_json::Value::Bool(b) => StarValue::Bool(*b),
        serde_json::Value::Number(n) => n.as_i64().map_or_else(
            || StarValue::Float(n.as_f64().unwrap_or(0.0)),
            StarValue::Int,
        ),
        serde_json::Value::String(s) => StarValue::Str(s.clone()),
        serde_json::Value::Array(items) => {
            StarValue::List(items.iter().map(json_to_star).collect())
        }
        serde_json::Value::Object(map) => StarValue::Dict(
            map.iter()
                .map(|(k, v)| (StarValue::Str(k.clone()), json_to_star(v)))
                .collect(),
        ),
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u32> = text
        .trim_end_matches('=')
        .bytes()
        .map(|c| BASE64.iter().position(|&b| b == c).map(|p| p as u32))
        .collect::<Option<_>>()?;
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (d << (18 - 6 * i)));
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

fn percent_encode(text: &str, spaces_as_plus: bool) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            b' ' if spaces_as_plus => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Allocate a converted value on a heap (maps become dicts, arrays lists).
pub fn alloc<'v>(heap: Heap<'v>, value: &StarValue) -> Value<'v> {
    match value {
        StarValue::None => Value::new_none(),
        StarValue::Bool(b) => Value::new_bool(*b),
        StarValue::Int(i) => heap.alloc(*i),
        StarValue::Float(f) => heap.alloc(*f),
        StarValue::Str(s) => heap.alloc(s.as_str()),
        StarValue::List(items) => heap.alloc(AllocList(items.iter().map(|i| alloc(heap, i)))),
        StarValue::Tuple(items) => heap.alloc(starlark::values::tuple::AllocTuple(
            items.iter().map(|i| alloc(heap, i)),
        )),
        StarValue::Dict(items) => heap.alloc(AllocDict(
            items.iter().map(|(k, v)| (alloc(heap, k), alloc(heap, v))),
        )),
        StarValue::Other { repr, .. } => heap.alloc(repr.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module_value(code: &str, name: &str) -> StarValue {
        let engine = Engine::new(Path::new("."));
        let text: String = code.lines().map(|l| format!("#@ {l}\n")).collect();
        let module = engine
            .compile_yaml_file("t.yml", &text, Path::new("."))
            .unwrap_or_else(|e| panic!("{e:?}"));
        let value = module.get(name).expect("defined");
        super::super::starlark::to_star_value(value.value(), 0)
    }

    #[test]
    fn templates_see_the_data_values_as_structs() {
        let values = crate::yaml::parse_file(
            crate::source::FileId(0),
            "db:\n  port: 5432\n  my-key: x\nports:\n- num: 1\n",
            &Default::default(),
        )
        .expect("values parse")
        .docs
        .remove(0)
        .value;
        let engine = Engine::for_templates(Path::new("."), &values);
        let text = "#@ load(\"@ytt:data\", \"data\")\n#@ port = data.values.db.port\n#@ odd = getattr(data.values.db, \"my-key\")\n#@ n = data.values.ports[0].num\n";
        let module = engine
            .compile_yaml_file("t.yml", text, Path::new("."))
            .unwrap_or_else(|e| panic!("{e:?}"));
        let get = |name: &str| {
            super::super::starlark::to_star_value(module.get(name).expect("defined").value(), 0)
        };
        assert_eq!(get("port"), StarValue::Int(5432));
        assert_eq!(get("odd"), StarValue::Str("x".into()));
        assert_eq!(get("n"), StarValue::Int(1));
        // Schema and data-values files still see an empty struct.
        let plain = Engine::new(Path::new("."));
        let empty = plain.compile_yaml_file(
            "t.yml",
            "#@ load(\"@ytt:data\", \"data\")\n#@ x = hasattr(data.values, \"db\")\n",
            Path::new("."),
        );
        let empty = empty.unwrap_or_else(|e| panic!("{e:?}"));
        let has_db = super::super::starlark::to_star_value(empty.get("x").expect("x").value(), 0);
        assert_eq!(has_db, StarValue::Bool(false));
    }

    #[test]
    fn ytt_modules_work() {
        let code = r#"load("@ytt:json", "json")
load("@ytt:yaml", "yaml")
load("@ytt:base64", "base64")
load("@ytt:url", "url")
load("@ytt:sha256", "sha256")
load("@ytt:md5", "md5")
load("@ytt:ip", "ip")
load("@ytt:assert", "assert")
load("@ytt:regexp", "regexp")
load("@ytt:struct", "struct")
out = [
  json.encode({"a": [1, True]}),
  json.decode('{"b": 2}')["b"],
  yaml.decode("x: yes\n")["x"],
  base64.encode("hello"),
  base64.decode("aGVsbG8="),
  url.query_param_value_encode("a b&c"),
  sha256.sum("abc")[:8],
  md5.sum("")[:8],
  ip.parse_addr("10.0.0.1").is_ipv4(),
  assert.try_to(lambda: fail("nope"))[1],
  regexp.match("^v[0-9]+$", "v12"),
  struct.make(a=1).a,
]"#;
        let StarValue::List(out) = module_value(code, "out") else {
            panic!("a list")
        };
        let expected = vec![
            StarValue::Str(r#"{"a":[1,true]}"#.into()),
            StarValue::Int(2),
            StarValue::Bool(true),
            StarValue::Str("aGVsbG8=".into()),
            StarValue::Str("hello".into()),
            StarValue::Str("a+b%26c".into()),
            StarValue::Str("ba7816bf".into()),
            StarValue::Str("d41d8cd9".into()),
            StarValue::Bool(true),
            StarValue::Str("fail: nope".into()),
            StarValue::Bool(true),
            StarValue::Int(1),
        ];
        assert_eq!(out.len(), expected.len());
        for (got, want) in out.iter().zip(&expected) {
            match (got, want) {
                (StarValue::Str(g), StarValue::Str(w)) => {
                    assert!(g.contains(w.as_str()), "{g} vs {w}")
                }
                _ => assert_eq!(got, want),
            }
        }
    }

    #[test]
    fn loads_stay_inside_the_package() {
        let engine = Engine::new(Path::new("/nonexistent/package"));
        let err = engine
            .compile_yaml_file(
                "t.yml",
                "#@ load(\"../../etc/passwd.star\", \"x\")\n",
                Path::new("/nonexistent/package"),
            )
            .unwrap_err();
        assert!(err.0.contains("not found in the package"), "{err:?}");
    }
}
