// Command benchclient is client-go's side of the benchmark (`make bench-real`): the same
// protocol as tests/src/bin/bench_client.rs, run by bench_driver in its own process so the
// CPU time and RSS it reports are its own.
//
//	benchclient --mode client-go-protobuf|client-go-json --kind pods|configmaps
//	            --count N --kubeconfig PATH [--events M]
//
// It builds a SharedInformerFactory informer for the kind with one counting UpdateFunc
// handler, and prints one JSON line when the store holds N objects (sync wall from process
// start, CPU from /proc/self/stat, peak RSS VmHWM, steady RSS VmRSS). With --events M it then
// prints {"phase":"ready","handlers":1}, waits for a line on stdin, and prints
// {"phase":"events",...} once its handler has seen M updates.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// procStats is this process's CPU and memory, from /proc/self.
type procStats struct {
	cpuS    float64 // user + system CPU seconds of every thread so far
	sysS    float64 // the system part of cpuS
	peakRSS uint64  // VmHWM in bytes
	rss     uint64  // VmRSS in bytes
}

func readProcStats() procStats {
	var s procStats
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				continue
			}
			kib, _ := strconv.ParseUint(fields[1], 10, 64)
			switch fields[0] {
			case "VmHWM:":
				s.peakRSS = kib * 1024
			case "VmRSS:":
				s.rss = kib * 1024
			}
		}
	}
	// Fields 14 and 15 (utime, stime) in clock ticks of USER_HZ = 100; the command name
	// (field 2) may contain spaces, so split after its closing parenthesis.
	if stat, err := os.ReadFile("/proc/self/stat"); err == nil {
		text := string(stat)
		if i := strings.LastIndexByte(text, ')'); i >= 0 {
			fields := strings.Fields(text[i+1:])
			if len(fields) > 12 {
				utime, _ := strconv.ParseUint(fields[14-3], 10, 64)
				stime, _ := strconv.ParseUint(fields[15-3], 10, 64)
				s.cpuS = float64(utime+stime) / 100
				s.sysS = float64(stime) / 100
			}
		}
	}
	return s
}

func jsonLine(value map[string]any) {
	line, err := json.Marshal(value)
	if err != nil {
		fail("json: %v", err)
	}
	fmt.Fprintf(os.Stdout, "%s\n", line)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchclient: "+format+"\n", args...)
	os.Exit(1)
}

// waitUntil polls done every millisecond and returns the time since start once it holds.
func waitUntil(start time.Time, done func() bool) time.Duration {
	for !done() {
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

func main() {
	start := time.Now()
	mode := flag.String("mode", "", "client-go-protobuf or client-go-json")
	kind := flag.String("kind", "pods", "pods or configmaps")
	count := flag.Int("count", 0, "objects the store must hold to be synced")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server")
	events := flag.Int("events", 0, "updates to wait for after sync (0: none)")
	flag.Parse()
	if *kubeconfig == "" {
		fail("--kubeconfig is required")
	}

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	// No client-side throttling: the informer makes a handful of requests anyway.
	config.QPS, config.Burst = -1, -1
	switch *mode {
	case "client-go-protobuf":
		// client-go's default: generated clients of built-in types ask for protobuf when
		// ContentType is unset.
	case "client-go-json":
		config.ContentType = "application/json"
		config.AcceptContentTypes = "application/json"
	default:
		fail("unknown mode %q", *mode)
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("client: %v", err)
	}

	factory := informers.NewSharedInformerFactory(clientset, 0)
	var informer cache.SharedIndexInformer
	switch *kind {
	case "pods":
		informer = factory.Core().V1().Pods().Informer()
	case "configmaps":
		informer = factory.Core().V1().ConfigMaps().Informer()
	default:
		fail("unknown kind %q", *kind)
	}
	var updates atomic.Int64
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) { updates.Add(1) },
	}); err != nil {
		fail("add handler: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	store := informer.GetStore()
	wall := waitUntil(start, func() bool { return len(store.ListKeys()) >= *count })
	stats := readProcStats()
	jsonLine(map[string]any{
		"phase":                 "sync",
		"mode":                  *mode,
		"kind":                  *kind,
		"count":                 *count,
		"cached":                len(store.ListKeys()),
		"sync_wall_s":           wall.Seconds(),
		"cpu_s":                 stats.cpuS,
		"sys_s":                 stats.sysS,
		"peak_rss_bytes":        stats.peakRSS,
		"steady_rss_bytes":      stats.rss,
		"steady_rss_per_object": float64(stats.rss) / float64(max(*count, 1)),
	})

	if *events > 0 {
		jsonLine(map[string]any{"phase": "ready", "handlers": 1})
		stdin := bufio.NewReader(os.Stdin)
		_, _ = stdin.ReadString('\n')
		cpuBefore := readProcStats().cpuS
		eventsStart := time.Now()
		updates.Store(0)
		wall := waitUntil(eventsStart, func() bool { return updates.Load() >= int64(*events) })
		cpu := readProcStats().cpuS - cpuBefore
		jsonLine(map[string]any{
			"cpu_s":            cpu,
			"cpu_us_per_event": cpu * 1e6 / float64(*events),
			"phase":            "events",
			"handlers":         1,
			"events":           *events,
			"wall_s":           wall.Seconds(),
			"events_per_s":     float64(*events) / wall.Seconds(),
		})
	}
	cancel()
	factory.Shutdown()
}
