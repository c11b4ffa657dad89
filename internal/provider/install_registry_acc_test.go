package provider_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// registry is a provider registry on loopback over HTTPS (the provider registry protocol:
// service discovery, version listing, download metadata with the signing key), for the one
// provider type "unikorn" under several namespaces, each serving a variant of one release:
//
//	unikorn-cloud  the release as built
//	tampered       an archive whose bytes differ from its SHA256SUMS line
//	wrong-sig      SHA256SUMS signed by a key the registry does not list
//
// Its version listing also names a newer version (extraVersion) that it cannot serve, so that
// an install that ignored the configuration's version constraint fails.
type registry struct {
	srv    *httptest.Server
	host   string // localhost:PORT, the source address's hostname
	caFile string // the PEM of the CA that signed its certificate

	key signingKey // listed in every download answer
	// files by namespace, then by file name
	files map[string]map[string][]byte

	mu       sync.Mutex
	requests []string // "GET /path"
}

type signingKey struct {
	KeyID      string `json:"key_id"`
	ASCIIArmor string `json:"ascii_armor"`
}

// newRegistry serves over TLS with a certificate of a CA made here, written as PEM to
// r.caFile (what the CLIs are told to trust through SSL_CERT_FILE), listing rel's signing key.
func newRegistry(t *testing.T, rel *release) *registry {
	t.Helper()

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	r := &registry{caFile: caFile, files: map[string]map[string][]byte{}, key: signingKey{
		KeyID: rel.fingerprint[len(rel.fingerprint)-16:], ASCIIArmor: rel.armored,
	}}

	caCert, caKey := makeCA(t)
	leaf := makeLeaf(t, caCert, caKey)

	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw}), 0o644); err != nil {
		t.Fatal(err)
	}

	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	r.srv.StartTLS()
	t.Cleanup(r.srv.Close)

	_, port, err := net.SplitHostPort(r.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}

	r.host = "localhost:" + port

	return r
}

// serveNamespace serves files (a release's, by name) under namespace.
func (r *registry) serveNamespace(namespace string, files map[string][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()

	r.files[namespace] = files
}

// source is the provider source address of a namespace.
func (r *registry) source(namespace string) string { return r.host + "/" + namespace + "/unikorn" }

func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()

	r.requests = append(r.requests, req.Method+" "+req.URL.Path)
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")

	switch {
	case req.URL.Path == "/.well-known/terraform.json":
		writeJSON(w, map[string]any{"providers.v1": "/v1/providers/"})
	// /v1/providers/NAMESPACE/unikorn/versions
	case len(parts) == 5 && parts[0] == "v1" && parts[1] == "providers" && parts[3] == "unikorn" && parts[4] == "versions" &&
		r.files[parts[2]] != nil:
		var versions []map[string]any
		for _, v := range []string{installVersion, installNewer} {
			versions = append(versions, map[string]any{
				"version": v, "protocols": []string{"6.0"},
				"platforms": []map[string]string{{"os": runtime.GOOS, "arch": runtime.GOARCH}},
			})
		}

		writeJSON(w, map[string]any{"versions": versions})
	// /v1/providers/NAMESPACE/unikorn/VERSION/download/OS/ARCH
	case len(parts) == 8 && parts[0] == "v1" && parts[1] == "providers" && parts[3] == "unikorn" && parts[5] == "download" &&
		r.files[parts[2]] != nil && parts[4] == installVersion && parts[6] == runtime.GOOS && parts[7] == runtime.GOARCH:
		r.download(w, parts[2])
	// /files/NAMESPACE/NAME
	case len(parts) == 3 && parts[0] == "files" && r.files[parts[1]][parts[2]] != nil:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(r.files[parts[1]][parts[2]])
	default:
		http.NotFound(w, req)
	}
}

// download answers the download metadata of the release for namespace: the archive, the
// checksum file and its signature, and the key that the registry says signs the namespace.
func (r *registry) download(w http.ResponseWriter, namespace string) {
	base := "https://" + r.host + "/files/" + namespace + "/"
	archive := archiveName()

	sums, err := parseSums(r.files[namespace][sumsName()])
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}

	writeJSON(w, map[string]any{
		"protocols":             []string{"6.0"},
		"os":                    runtime.GOOS,
		"arch":                  runtime.GOARCH,
		"filename":              archive,
		"download_url":          base + archive,
		"shasums_url":           base + sumsName(),
		"shasums_signature_url": base + sumsName() + ".sig",
		"shasum":                sums[archive],
		"signing_keys":          map[string]any{"gpg_public_keys": []signingKey{r.key}},
	})
}

// seen reports whether a request for a path was made.
func (r *registry) seen(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()

	for _, req := range r.requests {
		if strings.HasSuffix(req, " "+path) {
			return true
		}
	}

	return false
}

// parseSums reads a SHA256SUMS file: the hex digest of each file, by name.
func parseSums(b []byte) (map[string]string, error) {
	out := map[string]string{}

	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			return nil, fmt.Errorf("SHA256SUMS line %q is not \"<sha256>  <name>\"", line)
		}

		out[name] = sum
	}

	return out, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// makeCA is a throw-away CA for the registry's certificate.
func makeCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()

	return makeCert(t, &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "install test CA (throw-away)"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
}

// makeLeaf is the registry's certificate for localhost, signed by the CA.
func makeLeaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey) tls.Certificate {
	t.Helper()

	cert, key := makeCert(t, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, caKey)

	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key}
}

// makeCert makes a P-256 key and a certificate of tmpl for it, valid from an hour ago for a
// day, signed by parent's key (self-signed when parent is nil).
func makeCert(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	if parent == nil {
		parent, parentKey = tmpl, key
	}

	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)

	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}

	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}

	return cert, key
}

// readDir reads every file of a directory into memory.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}

	out := map[string][]byte{}

	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}

		out[e.Name()] = b
	}

	return out
}
