// Command observer is the client-go half of the differential conformance test
// (tests/tests/integration/conformance_client_go.rs): it runs three ConfigMap informer
// factories against one server and writes every handler callback, and at the end every
// factory's cache, as normalised JSON lines. Its Rust twin is the conformance_observer
// binary of kube-informers-tests; both must write the same format.
//
// Factories: "all" (every namespace), "conf-a" (WithNamespace), "web" (label selector
// tier=web). Each informer has handler "h1" from the start. Commands on stdin, one a line:
// add-late-handler (handler "h2" on the "all" informer) and dump (write the caches, exit).
// Stdout gets "synced" once every factory has synced and "ok" after each command.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// callback is one handler call; fields that don't apply to its kind are omitted.
type callback struct {
	Factory   string `json:"factory"`
	Handler   string `json:"handler"`
	Kind      string `json:"kind"`
	Key       string `json:"key"`
	RV        string `json:"rv"`
	Initial   *bool  `json:"initial,omitempty"`
	OldRV     string `json:"old_rv,omitempty"`
	Tombstone *bool  `json:"tombstone,omitempty"`
}

// cacheLine is one factory's cache at the end: key -> resourceVersion.
type cacheLine struct {
	Factory string            `json:"factory"`
	Cache   map[string]string `json:"cache"`
}

// writer serialises lines from every handler goroutine into one file.
type writer struct {
	mu  sync.Mutex
	out *bufio.Writer
}

func (w *writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail("encode: %v", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(append(b, '\n'))
	if err := w.out.Flush(); err != nil {
		fail("write: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "observer: "+format+"\n", args...)
	os.Exit(1)
}

func meta(obj any) (key, rv string) {
	o, ok := obj.(metav1.Object)
	if !ok {
		fail("not an object: %T", obj)
	}
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		fail("key: %v", err)
	}
	return key, o.GetResourceVersion()
}

func handler(w *writer, factory, name string) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			key, rv := meta(obj)
			w.line(callback{Factory: factory, Handler: name, Kind: "add", Key: key, RV: rv, Initial: &initial})
		},
		UpdateFunc: func(oldObj, newObj any) {
			key, rv := meta(newObj)
			_, oldRV := meta(oldObj)
			w.line(callback{Factory: factory, Handler: name, Kind: "update", Key: key, RV: rv, OldRV: oldRV})
		},
		DeleteFunc: func(obj any) {
			tombstone := false
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				tombstone = true
				obj = t.Obj
			}
			key, rv := meta(obj)
			w.line(callback{Factory: factory, Handler: name, Kind: "delete", Key: key, RV: rv, Tombstone: &tombstone})
		},
	}
}

type observed struct {
	name     string
	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path of the kubeconfig (its current context is used)")
	outPath := flag.String("out", "", "file the JSON lines are written to")
	flag.Parse()
	if *kubeconfig == "" || *outPath == "" {
		fail("--kubeconfig and --out are required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("client: %v", err)
	}
	file, err := os.Create(*outPath)
	if err != nil {
		fail("create %s: %v", *outPath, err)
	}
	w := &writer{out: bufio.NewWriter(file)}

	factories := []observed{
		{name: "all", factory: informers.NewSharedInformerFactory(client, 0)},
		{name: "conf-a", factory: informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace("conf-a"))},
		{name: "web", factory: informers.NewSharedInformerFactoryWithOptions(client, 0,
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "tier=web" }))},
	}
	stop := make(chan struct{})
	for i := range factories {
		f := &factories[i]
		f.informer = f.factory.Core().V1().ConfigMaps().Informer()
		if _, err := f.informer.AddEventHandler(handler(w, f.name, "h1")); err != nil {
			fail("add handler: %v", err)
		}
		f.factory.Start(stop)
	}
	for _, f := range factories {
		for typ, ok := range f.factory.WaitForCacheSync(stop) {
			if !ok {
				fail("%s: %v did not sync", f.name, typ)
			}
		}
	}
	fmt.Println("synced")

	stdin := bufio.NewScanner(os.Stdin)
	for stdin.Scan() {
		switch cmd := stdin.Text(); cmd {
		case "add-late-handler":
			reg, err := factories[0].informer.AddEventHandler(handler(w, "all", "h2"))
			if err != nil {
				fail("add late handler: %v", err)
			}
			for !reg.HasSynced() {
				time.Sleep(10 * time.Millisecond)
			}
		case "dump":
			for _, f := range factories {
				entries := map[string]string{}
				for _, obj := range f.informer.GetStore().List() {
					cm := obj.(*corev1.ConfigMap)
					key, rv := meta(cm)
					entries[key] = rv
				}
				w.line(cacheLine{Factory: f.name, Cache: entries})
			}
			fmt.Println("ok")
			close(stop)
			os.Exit(0)
		default:
			fail("unknown command %q", cmd)
		}
		fmt.Println("ok")
	}
	if err := stdin.Err(); err != nil {
		fail("stdin: %v", err)
	}
}
