// Command apiserver starts a real apiextensions-apiserver (upstream's own test server from
// k8s.io/apiextensions-apiserver/pkg/cmd/server/testing) backed by an embedded etcd, both on
// loopback and in a temporary directory, for the Rust end-to-end tests in tests/e2e.
//
// It prints one JSON line on stdout once the server answers /healthz:
//
//	{"server":"https://127.0.0.1:PORT","ca_pem":"...","tls_server_name":"...","token":"..."}
//
// and stops (API server, then etcd, then removes its temporary directory) when its standard
// input closes. Logs go to stderr.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	servertesting "k8s.io/apiextensions-apiserver/pkg/cmd/server/testing"
	"k8s.io/klog/v2"

	"go.etcd.io/etcd/server/v3/embed"
)

// unusedKubeconfig names a server nobody listens on (loopback, port 1): it is only read at
// start-up by the delegated authn/authz options, which --authentication-skip-lookup and the
// loopback token never make call it.
const unusedKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: unused
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: unused
  context:
    cluster: unused
    user: unused
current-context: unused
users:
- name: unused
  user:
    token: unused
`

// endpoint is the single JSON line the Rust side reads.
type endpoint struct {
	Server        string `json:"server"`
	CAPEM         string `json:"ca_pem"`
	TLSServerName string `json:"tls_server_name"`
	Token         string `json:"token"`
}

// logger adapts StartTestServer's Logger interface to stderr.
type logger struct{}

func (logger) Errorf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
}
func (logger) Fatalf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "fatal: "+format+"\n", args...)
	os.Exit(1)
}
func (logger) Logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

func freeLoopbackURL() (url.URL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, err
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}, nil
}

func startEtcd(dir string) (*embed.Etcd, string, error) {
	client, err := freeLoopbackURL()
	if err != nil {
		return nil, "", err
	}
	peer, err := freeLoopbackURL()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "capi-e2e"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-etcd.Server.ReadyNotify():
	case <-time.After(time.Minute):
		etcd.Close()
		return nil, "", fmt.Errorf("embedded etcd not ready after a minute")
	}
	return etcd, client.String(), nil
}

func run() error {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("v", "0")

	dir, err := os.MkdirTemp("", "capi-e2e-etcd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// The free ports are picked, released and then bound by etcd: another process can take
	// one in between (seen when test binaries start servers one after another), so a bind
	// failure is retried with new ports in a new data directory.
	var etcd *embed.Etcd
	var etcdURL string
	for attempt := 1; ; attempt++ {
		etcd, etcdURL, err = startEtcd(filepath.Join(dir, fmt.Sprintf("etcd-%d", attempt)))
		if err == nil {
			break
		}
		inUse := errors.Is(err, syscall.EADDRINUSE) ||
			strings.Contains(err.Error(), "address already in use")
		if attempt == 5 || !inUse {
			return fmt.Errorf("starting etcd: %w", err)
		}
	}
	defer etcd.Close()

	// Delegated authentication and authorization need a kubeconfig to start, although with
	// --authentication-skip-lookup nothing is ever asked of it; the loopback token the tests
	// use is always authorized. Admission plugins that need a kube-apiserver are off.
	unused := filepath.Join(dir, "unused-kubeconfig")
	if err := os.WriteFile(unused, []byte(unusedKubeconfig), 0o600); err != nil {
		return err
	}
	flags := []string{
		"--etcd-servers", etcdURL,
		"--etcd-prefix", "/capi-e2e",
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", unused,
		"--authorization-kubeconfig", unused,
		"--kubeconfig", unused,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
	}
	server, err := servertesting.StartTestServer(logger{}, nil, flags, nil)
	if err != nil {
		return fmt.Errorf("starting apiextensions-apiserver: %w", err)
	}
	defer server.TearDownFn()

	cfg := server.ClientConfig
	line, err := json.Marshal(endpoint{
		Server:        cfg.Host,
		CAPEM:         string(cfg.TLSClientConfig.CAData),
		TLSServerName: cfg.TLSClientConfig.ServerName,
		Token:         cfg.BearerToken,
	})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(os.Stdout, string(line)); err != nil {
		return err
	}
	// Run until the parent closes our stdin (or dies).
	_, _ = io.Copy(io.Discard, os.Stdin)
	fmt.Fprintln(os.Stderr, "stdin closed: stopping")
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
