// Package parentwatch ends a test server when the process that started it is gone.
//
// A Rust test that starts etcd and kube-apiserver stops them on drop, but a test process
// killed by a signal runs no destructors. Polling the parent process id catches that case:
// when the parent dies the child is re-parented and its parent id changes.
package parentwatch

import (
	"os"
	"time"
)

// Start exits the process soon after its parent exits. It is off unless the environment
// variable KUBE_INFORMERS_EXIT_WITH_PARENT is "1", so the binaries also run standalone.
func Start() {
	if os.Getenv("KUBE_INFORMERS_EXIT_WITH_PARENT") != "1" {
		return
	}
	parent := os.Getppid()
	go func() {
		for range time.Tick(500 * time.Millisecond) {
			if os.Getppid() != parent {
				os.Exit(2)
			}
		}
	}()
}
