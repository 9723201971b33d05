// Command kubeapiserver starts a real kube-apiserver (k8s.io/kubernetes's own test server,
// cmd/kube-apiserver/app/testing.StartTestServer) backed by an embedded etcd, both on
// loopback and in a temporary directory, for the Rust end-to-end tests in tests/e2e: the CRD,
// conversion and validation tests (the kube-apiserver includes the apiextensions-apiserver)
// and those that need the core API (Nodes, Secrets, RBAC). NamespaceLifecycle is off, so a
// test may create objects in a namespace it never created.
//
// Authorization is RBAC (the loopback token is in system:masters and always allowed).
// A static token file names extra users, one per -user flag, each with a fresh token, so a
// test can act as a user that has only what a ClusterRole grants. It prints one JSON line
// on stdout once the server answers /healthz:
//
//	{"server":"https://127.0.0.1:PORT","ca_pem":"...","tls_server_name":"...","token":"...",
//	 "users":{"NAME":"TOKEN"}}
//
// and stops (API server, then etcd, then removes its temporary directory) when its standard
// input closes. Logs go to stderr.
package main

import (
	"crypto/rand"
	"encoding/hex"
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
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/klog/v2"
	kubetesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// endpoint is the single JSON line the Rust side reads.
type endpoint struct {
	Server        string            `json:"server"`
	CAPEM         string            `json:"ca_pem"`
	TLSServerName string            `json:"tls_server_name"`
	Token         string            `json:"token"`
	Users         map[string]string `json:"users"`
}

// harness is the test-framework stand-in StartTestServer logs to and registers clean-ups
// with; the clean-ups run, last first, when the server stops.
type harness struct {
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	tmp      string
}

func (h *harness) Attr(key, value string) {}
func (h *harness) Chdir(dir string)       {}
func (h *harness) Cleanup(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cleanups = append(h.cleanups, f)
}
func (h *harness) runCleanups() {
	h.mu.Lock()
	fs := h.cleanups
	h.cleanups = nil
	h.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
func (h *harness) Error(args ...any)                 { h.failed = true; fmt.Fprintln(os.Stderr, args...) }
func (h *harness) Errorf(format string, args ...any) { h.failed = true; h.Logf(format, args...) }
func (h *harness) Fail()                             { h.failed = true }
func (h *harness) FailNow()                          { fmt.Fprintln(os.Stderr, "fatal"); os.Exit(1) }
func (h *harness) Failed() bool                      { return h.failed }
func (h *harness) Fatal(args ...any)                 { fmt.Fprintln(os.Stderr, args...); os.Exit(1) }
func (h *harness) Fatalf(format string, args ...any) { h.Logf(format, args...); os.Exit(1) }
func (h *harness) Helper()                           {}
func (h *harness) Log(args ...any)                   { fmt.Fprintln(os.Stderr, args...) }
func (h *harness) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (h *harness) Name() string                      { return "capi-e2e" }
func (h *harness) Setenv(key, value string)          { _ = os.Setenv(key, value) }
func (h *harness) Skip(args ...any)                  { h.Fatal(args...) }
func (h *harness) Skipf(format string, args ...any)  { h.Fatalf(format, args...) }
func (h *harness) SkipNow()                          { h.FailNow() }
func (h *harness) Skipped() bool                     { return false }
func (h *harness) TempDir() string                   { return h.tmp }

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

// userList collects the repeated -user flag.
type userList []string

func (u *userList) String() string     { return strings.Join(*u, ",") }
func (u *userList) Set(v string) error { *u = append(*u, v); return nil }

func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func run() error {
	var users userList
	flag.Var(&users, "user", "a user the static token file names (repeatable)")
	flag.Parse()

	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("v", "0")

	dir, err := os.MkdirTemp("", "capi-e2e-kube")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// Ports are picked, released and then bound by etcd: a bind failure is retried with
	// new ports in a new data directory.
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

	tokens := map[string]string{}
	var lines strings.Builder
	for i, name := range users {
		token, err := newToken()
		if err != nil {
			return err
		}
		tokens[name] = token
		fmt.Fprintf(&lines, "%s,%s,capi-e2e-%d\n", token, name, i)
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(lines.String()), 0o600); err != nil {
		return err
	}

	storage := storagebackend.NewDefaultConfig("/capi-e2e/registry", nil)
	storage.Transport.ServerList = []string{etcdURL}
	flags := []string{
		"--authorization-mode", "RBAC",
		"--token-auth-file", tokenFile,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", "NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
	}
	h := &harness{tmp: dir}
	options := kubetesting.NewDefaultTestServerOptions()
	options.DisableInvariantChecks = true
	server, err := kubetesting.StartTestServer(h, options, flags, storage)
	if err != nil {
		h.runCleanups()
		return fmt.Errorf("starting kube-apiserver: %w", err)
	}
	defer h.runCleanups()
	defer server.TearDownFn()

	cfg := server.ClientConfig
	line, err := json.Marshal(endpoint{
		Server:        cfg.Host,
		CAPEM:         string(cfg.TLSClientConfig.CAData),
		TLSServerName: cfg.TLSClientConfig.ServerName,
		Token:         cfg.BearerToken,
		Users:         tokens,
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
