// Command protoschema writes the protobuf schema table of the runtime's protobuf decoder
// (runtime/src/listwatch/protobuf/generated/schema.rs): for every type registered in client-go's
// kubernetes scheme, every message reachable from it, with each field's number, JSON name,
// value kind and Go JSON omit rule, read by reflection from the Go struct tags of the
// k8s.io/api release this module requires.
//
//	protoschema [-check] PATH
//
// Without -check it writes PATH; with -check it fails (exit 1) when PATH differs from what it
// would write, which is how `make check-generated` keeps the checked-in table current.
//
// Types whose Go JSON differs from the shape of their protobuf message are named here and
// given a special kind (Time, Quantity, IntOrString, ...); any other type with its own
// MarshalJSON fails the run, so a new one is never decoded by its protobuf shape.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// special names the Go types whose JSON is not the shape of their protobuf message, and
// the schema kind that turns one into the other.
var special = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "Kind::Time",
	reflect.TypeFor[metav1.MicroTime]():     "Kind::MicroTime",
	reflect.TypeFor[metav1.FieldsV1]():      "Kind::RawJson",
	reflect.TypeFor[runtime.RawExtension](): "Kind::RawJson",
	reflect.TypeFor[resource.Quantity]():    "Kind::Quantity",
	reflect.TypeFor[intstr.IntOrString]():   "Kind::IntOrString",
}

var (
	jsonMarshaler  = reflect.TypeFor[json.Marshaler]()
	protoMarshaler = reflect.TypeFor[interface{ Marshal() ([]byte, error) }]()
)

// message is one struct type's protobuf message.
type message struct {
	ident  string
	fields []field
}

type field struct {
	number int
	json   string
	kind   string
	flags  []string
}

type generator struct {
	messages map[reflect.Type]*message
	order    []reflect.Type
	errs     []string
}

func main() {
	check := flag.Bool("check", false, "fail when the file differs instead of writing it")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: protoschema [-check] PATH")
		os.Exit(2)
	}
	out, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "protoschema:", err)
		os.Exit(1)
	}
	path := flag.Arg(0)
	if *check {
		current, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(current, out) {
			fmt.Fprintf(os.Stderr, "protoschema: %s is stale or missing: run `make generate`\n", path)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "protoschema:", err)
		os.Exit(1)
	}
}

// listable is one listable kind of the scheme.
type listable struct {
	group, version, kind string
	typ                  reflect.Type
}

func generate() ([]byte, error) {
	g := &generator{messages: map[reflect.Type]*message{}}
	known := scheme.Scheme.AllKnownTypes()
	var resources []listable
	for gvk, typ := range known {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		list, ok := known[gvk.GroupVersion().WithKind(gvk.Kind+"List")]
		if !ok || typ.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1" {
			continue
		}
		if err := checkList(list); err != nil {
			return nil, fmt.Errorf("%s: %w", gvk, err)
		}
		g.message(typ)
		resources = append(resources, listable{gvk.Group, gvk.Version, gvk.Kind, typ})
	}
	g.message(reflect.TypeFor[metav1.ListMeta]())
	g.message(reflect.TypeFor[metav1.Status]())
	if len(g.errs) > 0 {
		sort.Strings(g.errs)
		return nil, fmt.Errorf("unsupported types:\n  %s", strings.Join(g.errs, "\n  "))
	}
	sort.Slice(resources, func(i, j int) bool {
		a, b := resources[i], resources[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.version != b.version {
			return a.version < b.version
		}
		return a.kind < b.kind
	})
	return g.render(resources), nil
}

// checkList fails unless a List type is ListMeta at 1 and items at 2, the layout the
// runtime's list decoder reads without a table.
func checkList(list reflect.Type) error {
	want := map[string]string{"ListMeta": "bytes,1,", "Items": "bytes,2,rep,"}
	for i := range list.NumField() {
		f := list.Field(i)
		tag := f.Tag.Get("protobuf")
		if prefix, ok := want[f.Name]; ok {
			if !strings.HasPrefix(tag, prefix) {
				return fmt.Errorf("%s.%s has protobuf tag %q", list.Name(), f.Name, tag)
			}
			delete(want, f.Name)
		} else if tag != "" {
			return fmt.Errorf("%s has an unexpected field %s", list.Name(), f.Name)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("%s lacks ListMeta or Items", list.Name())
	}
	return nil
}

// ident is the Rust static naming a message.
func ident(t reflect.Type) string {
	path := strings.TrimPrefix(t.PkgPath(), "k8s.io/")
	path = strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(path)
	return strings.ToUpper(path + "_" + t.Name())
}

// message registers struct type t and everything reachable from its fields.
func (g *generator) message(t reflect.Type) *message {
	if m, ok := g.messages[t]; ok {
		return m
	}
	m := &message{ident: ident(t)}
	g.messages[t] = m
	g.order = append(g.order, t)
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		g.errs = append(g.errs, fmt.Sprintf("%s has its own MarshalJSON", t))
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		number, err := strconv.Atoi(parts[1])
		if err != nil {
			g.errs = append(g.errs, fmt.Sprintf("%s.%s: protobuf tag %q", t, f.Name, tag))
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			g.errs = append(g.errs, fmt.Sprintf("%s.%s: the json \"string\" option", t, f.Name))
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		inline := strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && name == "")
		if name == "" {
			name = f.Name
		}
		out := field{number: number, json: name}
		typ := f.Type
		pointer := typ.Kind() == reflect.Pointer
		if pointer {
			typ = typ.Elem()
		}
		where := fmt.Sprintf("%s.%s", t, f.Name)
		if inline {
			if typ.Kind() != reflect.Struct || special[typ] != "" {
				g.errs = append(g.errs, where+": inline non-struct")
				continue
			}
			out.kind = "Kind::Inline(&" + g.message(typ).ident + ")"
			out.json = ""
			m.fields = append(m.fields, out)
			continue
		}
		switch {
		case typ.Kind() == reflect.Map:
			if typ.Key().Kind() != reflect.String {
				g.errs = append(g.errs, where+": map key not a string")
				continue
			}
			value := g.kind(typ.Elem(), where)
			out.kind = "Kind::Map(&" + value + ")"
		case typ.Kind() == reflect.Slice && typ.Elem().Kind() != reflect.Uint8 && !isStringList(typ):
			out.kind = g.kind(typ.Elem(), where)
			out.flags = append(out.flags, "REPEATED")
		default:
			out.kind = g.kind(typ, where)
			scalar := out.kind == "Kind::Int" || out.kind == "Kind::Uint" || out.kind == "Kind::Bool" ||
				out.kind == "Kind::String" || out.kind == "Kind::Bytes" || out.kind == "Kind::Double" ||
				out.kind == "Kind::Float"
			if omit && !pointer && scalar {
				out.flags = append(out.flags, "OMIT_ZERO")
			}
			if strings.Contains(","+opts+",", ",omitzero,") && !scalar && out.kind != "Kind::Time" && out.kind != "Kind::MicroTime" {
				g.errs = append(g.errs, where+": omitzero on a struct")
			}
		}
		m.fields = append(m.fields, out)
	}
	sort.Slice(m.fields, func(i, j int) bool { return m.fields[i].number < m.fields[j].number })
	return m
}

// isStringList says whether t is a named []string with its own protobuf message (a
// wrapper such as ExtraValue, `{repeated string items = 1}`, which JSON shows as an array).
func isStringList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String && t.Name() != "" &&
		reflect.PointerTo(t).Implements(protoMarshaler)
}

// kind is the schema kind of one value of Go type t. The wire type follows from the Go
// type as go-to-protobuf maps it (the wire types written in the struct tags are not
// checked by anything upstream and are often wrong: `*bool` fields tagged `bytes`).
func (g *generator) kind(t reflect.Type, where string) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if kind, ok := special[t]; ok {
		return kind
	}
	if t.Kind() != reflect.Struct && (t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)) {
		g.errs = append(g.errs, fmt.Sprintf("%s: %s has its own MarshalJSON", where, t))
	}
	if isStringList(t) {
		return "Kind::StringList"
	}
	switch t.Kind() {
	case reflect.Struct:
		return "Kind::Message(&" + g.message(t).ident + ")"
	case reflect.String:
		return "Kind::String"
	case reflect.Bool:
		return "Kind::Bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "Kind::Int"
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "Kind::Uint"
	case reflect.Float64:
		return "Kind::Double"
	case reflect.Float32:
		return "Kind::Float"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Kind::Bytes"
		}
	}
	g.errs = append(g.errs, fmt.Sprintf("%s: unsupported type %s", where, t))
	return "Kind::String"
}

func (g *generator) render(resources []listable) []byte {
	var b bytes.Buffer
	b.WriteString("// @generated by conformance/cmd/protoschema from k8s.io/api as client-go v0.36.3's\n")
	b.WriteString("// scheme registers it; do not edit: `make generate` rewrites it.\n\n")
	b.WriteString("//! The protobuf messages of the built-in types: each field's number, JSON name, kind and\n")
	b.WriteString("//! Go JSON omit rule (see `conformance/cmd/protoschema`).\n\n")
	b.WriteString("use crate::listwatch::protobuf::types::{Field, Kind, Message, OMIT_ZERO, REPEATED};\n\n")
	types := append([]reflect.Type(nil), g.order...)
	sort.Slice(types, func(i, j int) bool { return g.messages[types[i]].ident < g.messages[types[j]].ident })
	for _, t := range types {
		m := g.messages[t]
		fmt.Fprintf(&b, "pub(crate) static %s: Message = Message {\n", m.ident)
		fmt.Fprintf(&b, "    name: %q,\n", t.PkgPath()+"."+t.Name())
		if len(m.fields) == 0 {
			b.WriteString("    fields: &[],\n};\n\n")
			continue
		}
		b.WriteString("    fields: &[\n")
		for _, f := range m.fields {
			flags := "0"
			if len(f.flags) > 0 {
				flags = strings.Join(f.flags, " | ")
			}
			fmt.Fprintf(&b, "        Field { number: %d, json: %q, kind: %s, flags: %s },\n", f.number, f.json, f.kind, flags)
		}
		b.WriteString("    ],\n};\n\n")
	}
	b.WriteString("/// Every listable built-in kind: (group, version, kind, message), sorted.\n")
	b.WriteString("pub(crate) static RESOURCES: &[(&str, &str, &str, &Message)] = &[\n")
	for _, r := range resources {
		fmt.Fprintf(&b, "    (%q, %q, %q, &%s),\n", r.group, r.version, r.kind, g.messages[r.typ].ident)
	}
	b.WriteString("];\n\n")
	fmt.Fprintf(&b, "/// `metav1.ListMeta`.\npub(crate) static LIST_META: &Message = &%s;\n\n", ident(reflect.TypeFor[metav1.ListMeta]()))
	fmt.Fprintf(&b, "/// `metav1.Status`.\npub(crate) static STATUS: &Message = &%s;\n", ident(reflect.TypeFor[metav1.Status]()))
	return b.Bytes()
}
