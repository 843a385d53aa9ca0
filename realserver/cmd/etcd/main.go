// Command etcd is the upstream etcd server at the release go.mod pins, the storage behind the
// test kube-apiserver. It is never shipped.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"

	"github.com/kube-informers/realserver/internal/parentwatch"
)

func main() {
	parentwatch.Start()
	etcdmain.Main(os.Args)
}
