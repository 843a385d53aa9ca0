//! The workspace's architecture rules, checked on its sources (docs/architecture.md):
//! - no import cycle between the files of any crate: a file names another through
//!   `crate::`, `super::`, `self::` or a child module's path, `use` lines and paths in code
//!   alike, with re-exports followed to the file that defines the item;
//! - no hand-written file outside the tests over 400 lines (`generated/` is the code
//!   generator's, `tests/` folders and `tests.rs` files are tests).
//!
//! Both rules read the files as they are in the working tree, so a failure names the files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The most lines a hand-written, non-test source file may have.
const MAX_LINES: usize = 400;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every workspace member's folder, read from the root manifest's `members` list.
fn members() -> Vec<PathBuf> {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let line =
        manifest.lines().find(|l| l.trim_start().starts_with("members")).expect("a members line");
    let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    list.split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root.join(m))
        .collect()
}

/// One module of a crate: the file it lives in and the names it brings into scope.
#[derive(Default)]
struct Module {
    file: PathBuf,
    /// Child modules, by name: their index in `Crate::modules`.
    children: BTreeMap<String, usize>,
    parent: Option<usize>,
    /// For a module declared inline (`mod x { .. }`): the inline modules leading to it
    /// from its file's top level.
    inline_path: Vec<String>,
    /// `use` imports (public or not) by the name they bind: the absolute path they name.
    imports: BTreeMap<String, Vec<String>>,
    /// `use path::*` globs: absolute module paths.
    globs: Vec<Vec<String>>,
    /// Paths this module's code names, each made absolute from the crate root.
    references: Vec<Vec<String>>,
}

#[derive(Default)]
struct Crate {
    modules: Vec<Module>,
}

impl Crate {
    fn path_of(&self, mut module: usize) -> Vec<String> {
        let mut path = Vec::new();
        while let Some(parent) = self.modules[module].parent {
            let name = self.modules[parent].children.iter().find(|(_, i)| **i == module).unwrap().0;
            path.push(name.clone());
            module = parent;
        }
        path.reverse();
        path
    }

    /// Resolves an absolute path to the file that defines what it names, following
    /// re-exports and globs.
    fn resolve(&self, path: &[String], depth: usize) -> Option<PathBuf> {
        if depth > 16 {
            return None;
        }
        let mut module = 0;
        for (i, segment) in path.iter().enumerate() {
            if let Some(child) = self.modules[module].children.get(segment) {
                module = *child;
                continue;
            }
            let here = &self.modules[module];
            if let Some(target) = here.imports.get(segment) {
                let mut next = target.clone();
                next.extend_from_slice(&path[i + 1..]);
                return self.resolve(&next, depth + 1).or_else(|| Some(here.file.clone()));
            }
            for glob in &here.globs {
                let mut next = glob.clone();
                next.extend_from_slice(&path[i..]);
                if let Some(file) = self.resolve_defined(&next, depth + 1) {
                    return Some(file);
                }
            }
            return Some(here.file.clone());
        }
        Some(self.modules[module].file.clone())
    }

    /// Like `resolve`, but only where the glob's module has a module or an import of that
    /// name (a glob does not say which names it brings).
    fn resolve_defined(&self, path: &[String], depth: usize) -> Option<PathBuf> {
        let (last, module_path) = path.split_last()?;
        let module = self.find_module(module_path)?;
        let here = &self.modules[module];
        if here.children.contains_key(last) || here.imports.contains_key(last) {
            return self.resolve(path, depth);
        }
        None
    }

    fn find_module(&self, path: &[String]) -> Option<usize> {
        let mut module = 0;
        for segment in path {
            module = *self.modules[module].children.get(segment)?;
        }
        Some(module)
    }
}

/// Reads one crate root (lib.rs, main.rs or a bin) and every module file it declares.
fn load_crate(root_file: &Path) -> Crate {
    let mut krate = Crate::default();
    load_module(&mut krate, root_file, None, None);
    // Now that every module exists, make each module's paths absolute.
    for index in 0..krate.modules.len() {
        let file = krate.modules[index].file.clone();
        let ast = syn::parse_file(&fs::read_to_string(&file).unwrap()).unwrap();
        let here = krate.path_of(index);
        let mut items = &ast.items;
        for name in &krate.modules[index].inline_path {
            items = items
                .iter()
                .find_map(|item| match item {
                    syn::Item::Mod(m) if m.ident == name.as_str() => {
                        m.content.as_ref().map(|c| &c.1)
                    }
                    _ => None,
                })
                .unwrap();
        }
        let mut collector =
            Collector { krate: &krate, module: index, here, out: Module::default() };
        items.iter().for_each(|item| collector.visit_item(item));
        let Module { imports, globs, references, .. } = collector.out;
        let module = &mut krate.modules[index];
        module.imports = imports;
        module.globs = globs;
        module.references = references;
    }
    krate
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().contains("test"))
    })
}

fn load_module(
    krate: &mut Crate,
    file: &Path,
    parent: Option<(usize, String)>,
    dir: Option<PathBuf>,
) -> usize {
    let index = krate.modules.len();
    krate.modules.push(Module {
        file: file.to_path_buf(),
        parent: parent.as_ref().map(|p| p.0),
        ..Module::default()
    });
    if let Some((parent, name)) = parent {
        krate.modules[parent].children.insert(name, index);
    }
    let source = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let ast = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    // Where this module's child files live.
    // Where this module's child files live: beside a crate root, in a folder named after
    // any other file (a bin `src/bin/x.rs` is a crate root with its modules in `src/bin/x/`).
    let children_dir = dir.unwrap_or_else(|| {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let folder = file.parent().unwrap();
        if stem == "lib" || stem == "main" { folder.to_path_buf() } else { folder.join(stem) }
    });
    load_items(krate, &ast.items, index, &children_dir, file, &[]);
    index
}

/// Declares the modules of `items`: files for `mod x;`, the same file for inline ones.
fn load_items(
    krate: &mut Crate,
    items: &[syn::Item],
    index: usize,
    dir: &Path,
    file: &Path,
    inline: &[String],
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_cfg_test(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        match &m.content {
            Some((_, inner)) => {
                let child = krate.modules.len();
                let mut inline_path = inline.to_vec();
                inline_path.push(name.clone());
                krate.modules.push(Module {
                    file: file.to_path_buf(),
                    parent: Some(index),
                    inline_path: inline_path.clone(),
                    ..Module::default()
                });
                krate.modules[index].children.insert(name.clone(), child);
                load_items(krate, inner, child, &dir.join(&name), file, &inline_path);
            }
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let path = if flat.exists() { flat } else { nested };
                let child_dir = dir.join(&name);
                load_module(krate, &path, Some((index, name)), Some(child_dir));
            }
        }
    }
}

/// Collects one module's imports and the paths its code names.
struct Collector<'a> {
    krate: &'a Crate,
    module: usize,
    here: Vec<String>,
    out: Module,
}

impl Collector<'_> {
    /// Makes a path absolute from the crate root; `None` for paths into other crates.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let (first, rest) = segments.split_first()?;
        let mut path = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.here.clone(),
            "super" => {
                let mut up = self.here.clone();
                up.pop();
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    up.pop();
                    rest = &rest[1..];
                }
                up.extend_from_slice(rest);
                return Some(up);
            }
            name if self.krate.modules[self.module].children.contains_key(name) => {
                let mut p = self.here.clone();
                p.push(name.to_string());
                p
            }
            _ => return None,
        };
        path.extend_from_slice(rest);
        Some(path)
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.import(prefix, n.ident.to_string(), n.ident.to_string()),
            syn::UseTree::Rename(r) => {
                self.import(prefix, r.ident.to_string(), r.rename.to_string())
            }
            syn::UseTree::Glob(_) => {
                if let Some(path) = self.absolute(prefix) {
                    self.out.references.push(path.clone());
                    self.out.globs.push(path);
                }
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn import(&mut self, prefix: &[String], name: String, bound: String) {
        let mut segments = prefix.to_vec();
        if name != "self" {
            segments.push(name);
        }
        if let Some(path) = self.absolute(&segments) {
            let bound =
                if bound == "self" { prefix.last().cloned().unwrap_or_default() } else { bound };
            self.out.references.push(path.clone());
            self.out.imports.insert(bound, path);
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        // Inline modules are collected as modules of their own; test modules are tests.
        let _ = item;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1
            && let Some(abs) = self.absolute(&segments)
        {
            self.out.references.push(abs);
        }
        syn::visit::visit_path(self, path);
    }
}

/// The crate roots of one member: its lib, its main and each of its bins.
fn crate_roots(member: &Path) -> Vec<PathBuf> {
    let src = member.join("src");
    let mut roots: Vec<PathBuf> =
        ["lib.rs", "main.rs"].iter().map(|f| src.join(f)).filter(|p| p.exists()).collect();
    if let Ok(bins) = fs::read_dir(src.join("bin")) {
        for entry in bins.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rs") {
                roots.push(path);
            } else if path.join("main.rs").exists() {
                roots.push(path.join("main.rs"));
            }
        }
    }
    roots.sort();
    roots
}

/// The file-to-file edges of one crate, then every cycle among them (one per strongly
/// connected component of more than one file).
fn cycles(krate: &Crate) -> Vec<Vec<PathBuf>> {
    strongly_connected(&file_edges(krate)).into_iter().filter(|c| c.len() > 1).collect()
}

/// Which file names which: every reference resolved to the file defining its item.
fn file_edges(krate: &Crate) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for module in &krate.modules {
        for reference in &module.references {
            if let Some(target) = krate.resolve(reference, 0)
                && target != module.file
            {
                edges.entry(module.file.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// Tarjan's algorithm over the file graph.
fn strongly_connected(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: HashMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, node: &'a PathBuf) {
        s.index.insert(node, (s.next, s.next));
        s.next += 1;
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.edges.get(node).into_iter().flatten() {
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.index[next].1.min(s.index[node].1);
                s.index.get_mut(node).unwrap().1 = low;
            } else if s.on_stack.contains(next) {
                let low = s.index[next].0.min(s.index[node].1);
                s.index.get_mut(node).unwrap().1 = low;
            }
        }
        if s.index[node].0 == s.index[node].1 {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut s = State {
        edges,
        index: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: vec![],
    };
    for node in edges.keys() {
        if !s.index.contains_key(node) {
            visit(&mut s, node);
        }
    }
    s.out
}

#[test]
fn no_import_cycle_between_the_files_of_any_crate() {
    let root = workspace_root();
    let mut found = Vec::new();
    for member in members() {
        for crate_root in crate_roots(&member) {
            for cycle in cycles(&load_crate(&crate_root)) {
                let files: Vec<String> = cycle
                    .iter()
                    .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
                    .collect();
                found.push(files.join(" <-> "));
            }
        }
    }
    found.dedup();
    assert!(found.is_empty(), "import cycles between files:\n  {}", found.join("\n  "));
}

/// The runtime's layers, lowest first (docs/architecture.md): a file may use its own
/// layer and those listed before it. Layers on one line stand beside each other.
const RUNTIME_LAYERS: &[&[&str]] = &[
    &["tombstone", "labels", "workqueue"],
    &["listwatch"],
    &["reflector"],
    &["store", "fifo", "lister"],
    &["processor"],
    &["metrics"],
    &["informer"],
    &["factory", "dynamic"],
    &["metrics/prometheus"],
];

/// The layer of a runtime source file: its folder under `src/` (`metrics/prometheus`
/// for the exporter), `None` for the crate root.
fn runtime_layer(src: &Path, file: &Path) -> Option<usize> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts = relative.iter().map(|p| p.to_str().unwrap().trim_end_matches(".rs"));
    let first = parts.next()?;
    let name = match (first, parts.next()) {
        ("lib", None) => return None,
        ("metrics", Some("prometheus")) => "metrics/prometheus",
        (first, _) => first,
    };
    let layer = RUNTIME_LAYERS.iter().position(|layer| layer.contains(&name));
    Some(
        layer.unwrap_or_else(|| {
            panic!("{} belongs to no layer of RUNTIME_LAYERS", relative.display())
        }),
    )
}

#[test]
fn runtime_files_use_only_their_own_layer_and_those_below() {
    let root = workspace_root();
    let src = root.join("runtime/src");
    let mut upward = Vec::new();
    for (from, targets) in file_edges(&load_crate(&src.join("lib.rs"))) {
        let Some(from_layer) = runtime_layer(&src, &from) else { continue };
        for target in targets {
            if runtime_layer(&src, &target).is_some_and(|layer| layer > from_layer) {
                let name = |f: &Path| f.strip_prefix(&src).unwrap().display().to_string();
                upward.push(format!("{} uses {}", name(&from), name(&target)));
            }
        }
    }
    assert!(upward.is_empty(), "files using a layer above their own:\n  {}", upward.join("\n  "));
}

/// The cycle check itself sees a cycle through a re-export and a `super::` path.
#[test]
fn the_cycle_check_sees_a_cycle_through_a_re_export() {
    let dir = std::env::temp_dir().join(format!("architecture-check-{}", std::process::id()));
    fs::create_dir_all(dir.join("a")).unwrap();
    fs::write(dir.join("lib.rs"), "mod a;\npub use a::Thing;\n").unwrap();
    fs::write(
        dir.join("a/mod.rs"),
        "mod b;\nmod c;\npub use b::Thing;\npub(crate) use c::helper;\n",
    )
    .unwrap();
    fs::write(dir.join("a/b.rs"), "pub struct Thing;\nfn f() { super::helper(); }\n").unwrap();
    fs::write(dir.join("a/c.rs"), "use crate::Thing;\npub fn helper() -> Option<Thing> { None }\n")
        .unwrap();
    let found = cycles(&load_crate(&dir.join("lib.rs")));
    fs::remove_dir_all(&dir).unwrap();
    let names: Vec<Vec<String>> = found
        .iter()
        .map(|c| c.iter().map(|f| f.strip_prefix(&dir).unwrap().display().to_string()).collect())
        .collect();
    assert_eq!(names, vec![vec!["a/b.rs".to_string(), "a/c.rs".to_string()]]);
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "tests" && name != "generated" && name != "target" {
                source_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

#[test]
fn no_hand_written_non_test_file_over_400_lines() {
    let root = workspace_root();
    let mut files = Vec::new();
    for member in members() {
        for folder in ["src", "examples", "benches"] {
            source_files(&member.join(folder), &mut files);
        }
    }
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES)
                .then(|| format!("{} ({lines} lines)", f.strip_prefix(&root).unwrap().display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "files over {MAX_LINES} lines:\n  {}", long.join("\n  "));
}
