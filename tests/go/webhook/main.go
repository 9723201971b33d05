// Command webhook is the Go peer of the repository's benchmarks: what a Go provider runs for
// MachinePool conversion, built from upstream's own packages only (no code copied):
// controller-runtime's conversion handler (pkg/webhook/conversion.NewWebhookHandler) over
// Cluster API's MachinePool hub/spoke converter (core/webhooks/conversion.MachinePool), the
// same releases the oracle uses (tests/go/oracle/go.mod).
//
//	webhook serve --cert-dir DIR [--port N] [--http2] [--map group/Kind=apiVersion]...
//	    controller-runtime's webhook server (HTTP/2 off unless --http2, as Cluster API ships
//	    it); prints {"addr": "127.0.0.1:PORT"} once it listens, stops when stdin closes.
//	webhook convert [--map ...]           one review on stdin, the handler's answer on stdout.
//	webhook time --iterations N [--map ...]  the review on stdin through the handler N times;
//	    prints {"ns_per_op": ...}.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	crconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	webhookconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
)

type mapFlag map[string]string

func (m mapFlag) String() string { return fmt.Sprint(map[string]string(m)) }

func (m mapFlag) Set(entry string) error {
	gk, version, ok := strings.Cut(entry, "=")
	if !ok || version == "" || !strings.Contains(gk, "/") {
		return fmt.Errorf("want group/Kind=apiVersion, got %q", entry)
	}
	m[gk] = version
	return nil
}

func handler(versions mapFlag) (http.Handler, error) {
	scheme := runtime.NewScheme()
	if err := clusterv1beta1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := clusterv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	webhookconversion.SetAPIVersionGetter(func(_ context.Context, gk schema.GroupKind) (string, error) {
		if v, ok := versions[gk.Group+"/"+gk.Kind]; ok {
			return v, nil
		}
		return "", fmt.Errorf("no apiVersion known for %s", gk)
	})
	converter, err := webhookconversion.MachinePool(scheme)
	if err != nil {
		return nil, err
	}
	registry := crconversion.NewRegistry()
	if err := registry.RegisterConverter(clusterv1.GroupVersion.WithKind("MachinePool").GroupKind(), converter); err != nil {
		return nil, err
	}
	return crconversion.NewWebhookHandler(scheme, registry), nil
}

func post(h http.Handler, review []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(review))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: webhook serve|convert|time [flags]")
		os.Exit(2)
	}
	mode := os.Args[1]
	flags := flag.NewFlagSet(mode, flag.ExitOnError)
	versions := mapFlag{}
	flags.Var(versions, "map", "group/Kind=apiVersion of a referenced kind (repeatable)")
	certDir := flags.String("cert-dir", "", "directory with tls.crt and tls.key (serve)")
	port := flags.Int("port", 0, "port to listen on, 0 for any (serve)")
	http2 := flags.Bool("http2", false, "serve HTTP/2 too (serve)")
	iterations := flags.Int("iterations", 1000, "conversions to time (time)")
	if err := flags.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	h, err := handler(versions)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch mode {
	case "convert":
		review, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		rec := post(h, review)
		if rec.Code != http.StatusOK {
			fmt.Fprintf(os.Stderr, "status %d\n", rec.Code)
			os.Exit(1)
		}
		os.Stdout.Write(rec.Body.Bytes())
	case "time":
		review, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		post(h, review) // warm up
		start := time.Now()
		for range *iterations {
			if rec := post(h, review); rec.Code != http.StatusOK {
				fmt.Fprintf(os.Stderr, "status %d\n", rec.Code)
				os.Exit(1)
			}
		}
		elapsed := time.Since(start)
		json.NewEncoder(os.Stdout).Encode(map[string]any{"ns_per_op": float64(elapsed.Nanoseconds()) / float64(*iterations)})
	case "serve":
		serve(h, *certDir, *port, *http2)
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", mode)
		os.Exit(2)
	}
}

func serve(h http.Handler, certDir string, port int, http2 bool) {
	// A free port when none is given (controller-runtime's server wants a number).
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	var tlsOpts []func(*tls.Config)
	if !http2 {
		// Cluster API's managers serve HTTP/1.1 only unless --enable-http2 (CVE-2023-44487,
		// CVE-2023-39325): NextProtos limited to http/1.1.
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir, TLSOpts: tlsOpts})
	server.Register("/convert", h)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	errs := make(chan error, 1)
	go func() { errs <- server.Start(ctx) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case err := <-errs:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		case <-time.After(20 * time.Millisecond):
		}
		if i > 500 {
			fmt.Fprintln(os.Stderr, "the server did not listen")
			os.Exit(1)
		}
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"addr": addr})
	if err := <-errs; err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
