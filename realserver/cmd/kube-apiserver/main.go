// Command kube-apiserver is the upstream API server, built from the k8s.io/kubernetes module
// at the release go.mod pins. It exists only so tests and benchmarks can run a real server;
// it is never shipped.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"

	"github.com/kube-informers/realserver/internal/parentwatch"
)

func main() {
	parentwatch.Start()
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
