package provider_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// The install tests (issue 30) install a release of the provider the way users do, with the
// CLI that runs the tests (tools/testacc/run runs them once with Terraform and once with
// OpenTofu), never through dev_overrides:
//
//   - TestAccInstall_registry: from a provider registry on loopback over HTTPS (a CA made
//     here, trusted through SSL_CERT_FILE), with a version constraint that the registry's
//     newest version does not meet; `init` checks the signature and records the hashes in
//     the lock file, and an apply and destroy of a role against the local cloud run the
//     installed binary, whose log line names its version;
//   - TestAccInstall_mirror: from a filesystem_mirror (the air-gapped layout), the same apply;
//   - TestAccInstall_refused: an archive whose bytes differ from SHA256SUMS, and SHA256SUMS
//     signed by a key the registry does not list, are refused by `init`.
//
// The release is built once per test binary by tools/release (make release), for this
// machine's platform only, signed by a throw-away RSA key in a keyring made here.

// installVersion is the version of the release the tests build; installNewer is listed by the
// registry but not served, and the configurations' constraint (~> 0.1.0) excludes it.
const (
	installVersion = "0.1.0"
	installNewer   = "0.2.0"
)

// release is one build of the release for the install tests.
type release struct {
	base        string // the temporary directory of all of it, removed by TestMain
	dir         string // the release's files (tools/release -out)
	gnupgHome   string
	fingerprint string // the key that signed SHA256SUMS
	armored     string // its public key, ASCII-armored
	other       string // the fingerprint of a second key, which the registry never lists
	err         error
}

var (
	releaseOnce  sync.Once
	builtRelease release
)

func TestMain(m *testing.M) {
	code := m.Run()

	builtRelease.remove()
	os.Exit(code)
}

// remove stops the gpg-agent that the keyring started and removes the release's directory.
func (r *release) remove() {
	if r.base == "" {
		return
	}

	kill := exec.Command("gpgconf", "--kill", "gpg-agent")
	kill.Env = append(os.Environ(), "GNUPGHOME="+r.gnupgHome)
	_ = kill.Run()
	_ = os.RemoveAll(r.base)
}

// theRelease builds the release once for every install test of this test binary.
func theRelease(t *testing.T) *release {
	t.Helper()

	releaseOnce.Do(func() { builtRelease = buildRelease() })

	if builtRelease.err != nil {
		t.Fatal(builtRelease.err)
	}

	return &builtRelease
}

func buildRelease() release {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	base, err := os.MkdirTemp("", "unikorn-install-")
	if err != nil {
		return release{err: err}
	}

	// gpg-agent's socket lives in GNUPGHOME, whose path must stay short.
	r := release{base: base, dir: filepath.Join(base, "dist"), gnupgHome: filepath.Join(base, "gpg")}
	if err := os.Mkdir(r.gnupgHome, 0o700); err != nil {
		r.err = err
		return r
	}

	if r.fingerprint, err = r.newKey(ctx, "release"); err != nil {
		r.err = err
		return r
	}

	if r.other, err = r.newKey(ctx, "impostor"); err != nil {
		r.err = err
		return r
	}

	if r.armored, err = r.gpg(ctx, "--armor", "--export", r.fingerprint); err != nil {
		r.err = err
		return r
	}

	root, err := filepath.Abs("../..")
	if err != nil {
		r.err = err
		return r
	}

	// -allow-dirty: a developer's tree may hold uncommitted changes (CI's clone does not).
	cmd := exec.CommandContext(ctx, "go", "run", "-C", filepath.Join(root, "tools", "release"), ".", "-root", root,
		"-version", installVersion, "-out", r.dir, "-clean", "-targets", runtime.GOOS+"/"+runtime.GOARCH,
		"-gpg-fingerprint", r.fingerprint, "-allow-dirty")
	cmd.Env = append(os.Environ(), "GNUPGHOME="+r.gnupgHome)

	if out, err := cmd.CombinedOutput(); err != nil {
		r.err = fmt.Errorf("building the release: %w\n%s", err, out)
	}

	return r
}

// gpg runs gpg on the test's keyring and returns its standard output.
func (r *release) gpg(ctx context.Context, args ...string) (string, error) {
	var out, errOut bytes.Buffer

	cmd := exec.CommandContext(ctx, "gpg", append([]string{"--batch", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+r.gnupgHome)
	cmd.Stdout, cmd.Stderr = &out, &errOut

	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("gpg %s: %w: %s", strings.Join(args, " "), err, errOut.String())
	}

	return out.String(), nil
}

// newKey makes an RSA signing key (the only kind, with DSA, that registries accept) and
// returns its fingerprint.
func (r *release) newKey(ctx context.Context, who string) (string, error) {
	uid := "unikorn install test " + who + " <" + who + "@install.test>"
	if _, err := r.gpg(ctx, "--quick-generate-key", uid, "rsa2048", "sign", "never"); err != nil {
		return "", err
	}

	listing, err := r.gpg(ctx, "--with-colons", "--list-secret-keys", uid)
	if err != nil {
		return "", err
	}

	for _, line := range strings.Split(listing, "\n") {
		if f := strings.Split(line, ":"); len(f) > 9 && f[0] == "fpr" {
			return f[9], nil
		}
	}

	return "", fmt.Errorf("no fingerprint in gpg's listing of %s:\n%s", uid, listing)
}

// archiveName is the release's archive for this machine's platform.
func archiveName() string {
	return fmt.Sprintf("terraform-provider-unikorn_%s_%s_%s.zip", installVersion, runtime.GOOS, runtime.GOARCH)
}

func sumsName() string {
	return "terraform-provider-unikorn_" + installVersion + "_SHA256SUMS"
}

// files reads the release's files into memory.
func (r *release) files(t *testing.T) map[string][]byte {
	t.Helper()

	return readDir(t, r.dir)
}

// cliRun is one run of the CLI that runs the tests, in a working directory of its own.
type cliRun struct {
	t      *testing.T
	dir    string
	env    []string
	logged string // TF_LOG_PATH of the runs
}

// newCLI prepares a working directory holding config, and a CLI configuration (cliConfig,
// may be empty) that no machine setting overrides.
func newCLI(t *testing.T, config, cliConfig string, env ...string) *cliRun {
	t.Helper()

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}

	rc := filepath.Join(dir, "cli.tfrc")
	if err := os.WriteFile(rc, []byte(cliConfig), 0o644); err != nil {
		t.Fatal(err)
	}

	c := &cliRun{t: t, dir: dir, logged: filepath.Join(dir, "cli.log")}
	// TF_ACC_* and the reattach variables of terraform-plugin-testing must not leak into the
	// CLI: it would run the provider of the test binary instead of the installed one.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") {
			c.env = append(c.env, kv)
		}
	}

	c.env = append(c.env, "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "TF_LOG_PROVIDER=INFO", "TF_LOG_PATH="+c.logged,
		"CHECKPOINT_DISABLE=1", "TF_PLUGIN_CACHE_DIR=")
	c.env = append(c.env, env...)

	return c
}

// run runs the CLI with args and returns its combined output and error.
func (c *cliRun) run(args ...string) (string, error) {
	c.t.Helper()

	path := os.Getenv("UNIKORN_CLI_PATH")
	if path == "" {
		c.t.Fatal("UNIKORN_CLI_PATH must name the CLI: eval \"$(tools/cli/cli-env)\"")
	}

	ctx, cancel := context.WithTimeout(c.t.Context(), 10*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()

	return string(out), err
}

// must runs the CLI and fails the test when it fails.
func (c *cliRun) must(args ...string) string {
	c.t.Helper()

	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", filepath.Base(os.Getenv("UNIKORN_CLI_PATH")), strings.Join(args, " "), err, out)
	}

	return out
}

// installConfig is a configuration of one role, with the provider from source.
func installConfig(source, role string) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    unikorn = {
      source  = %q
      version = "~> 0.1.0"
    }
  }
}

resource "unikorn_role" "install" {
  name = %q
}
`, source, role)
}

// applyAndDestroy applies the configuration, checks in Keystone that the role exists, that
// the installed release ran (its log line names its version), then destroys and checks that
// the role is gone.
func (c *cliRun) applyAndDestroy(role string) {
	c.t.Helper()

	c.must("apply", "-auto-approve", "-input=false")

	if !roleExists(c.t, role) {
		c.t.Fatalf("after the apply there is no role %s in Keystone", role)
	}

	logged, err := os.ReadFile(c.logged)
	if err != nil {
		c.t.Fatal(err)
	}

	configured := regexp.MustCompile(`Unikorn provider configured.*version=` + regexp.QuoteMeta(installVersion) + `\b`)
	if !configured.Match(logged) {
		c.t.Errorf("the CLI's log has no line of the provider configured at version %s: the installed release did not run", installVersion)
	}

	if bytes.Contains(logged, []byte("development build")) {
		c.t.Error("the installed provider says it is a development build")
	}

	c.must("destroy", "-auto-approve", "-input=false")

	if roleExists(c.t, role) {
		c.t.Errorf("after the destroy the role %s is still in Keystone", role)
	}
}

// lockHashes returns the lock file's hashes of the provider.
func (c *cliRun) lockHashes() string {
	c.t.Helper()

	b, err := os.ReadFile(filepath.Join(c.dir, ".terraform.lock.hcl"))
	if err != nil {
		c.t.Fatalf("no lock file after init: %v", err)
	}

	return string(b)
}

// roleExists asks Keystone whether a global role of name exists.
func roleExists(t *testing.T, name string) bool {
	t.Helper()

	all, err := cloud.ListAll(t.Context(), roles.List(acctest.AdminKeystone(t), roles.ListOpts{Name: name}), roles.ExtractRoles, "roles")
	if err != nil {
		t.Fatalf("listing role %s: %v", name, err)
	}

	for _, r := range all {
		if r.Name == name && r.DomainID == "" {
			return true
		}
	}

	return false
}

// TestAccInstall_registry installs the release from a provider registry over HTTPS, with a
// version constraint, then applies and destroys a role with it.
func TestAccInstall_registry(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	rel := theRelease(t)
	reg := newRegistry(t, rel)
	reg.serveNamespace("unikorn-cloud", rel.files(t))

	role := acctest.RandomName()
	c := newCLI(t, installConfig(reg.source("unikorn-cloud"), role), "", "SSL_CERT_FILE="+reg.caFile)

	out := c.must("init", "-input=false", "-no-color")
	if !strings.Contains(out, installVersion) || strings.Contains(out, installNewer) {
		t.Errorf("init did not install %s (the newest the constraint allows):\n%s", installVersion, out)
	}

	if !reg.seen("/files/unikorn-cloud/" + sumsName() + ".sig") {
		t.Error("init never fetched the signature of SHA256SUMS")
	}

	archive := rel.files(t)[archiveName()]
	sum := sha256.Sum256(archive)

	if lock := c.lockHashes(); !strings.Contains(lock, `"zh:`+hex.EncodeToString(sum[:])+`"`) || !strings.Contains(lock, `"h1:`) {
		t.Errorf("the lock file does not record the archive's zh: hash %x and an h1: hash:\n%s", sum, lock)
	}

	c.applyAndDestroy(role)
}

// TestAccInstall_mirror installs the release from a filesystem_mirror in the packed layout
// (HOSTNAME/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip), with direct
// installation of the provider excluded, then applies and destroys a role with it.
func TestAccInstall_mirror(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	rel := theRelease(t)
	mirror := t.TempDir()
	host := "registry.example.com"

	pkgDir := filepath.Join(mirror, host, "unikorn-cloud", "unikorn")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(pkgDir, archiveName()), rel.files(t)[archiveName()], 0o644); err != nil {
		t.Fatal(err)
	}

	source := host + "/unikorn-cloud/unikorn"
	cliConfig := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%q]
  }
  direct {
    exclude = [%q]
  }
}
`, mirror, source, source)

	role := acctest.RandomName()
	c := newCLI(t, installConfig(source, role), cliConfig)
	c.must("init", "-input=false", "-no-color")

	if lock := c.lockHashes(); !strings.Contains(lock, source) || !strings.Contains(lock, `"h1:`) {
		t.Errorf("the lock file does not record the mirrored provider's hash:\n%s", lock)
	}

	c.applyAndDestroy(role)
}

// TestAccInstall_refused: init refuses an archive whose bytes differ from its SHA256SUMS line,
// and a SHA256SUMS signed by a key the registry does not list, and installs nothing.
func TestAccInstall_refused(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	rel := theRelease(t)
	reg := newRegistry(t, rel)

	tampered := rel.files(t)
	archive := append([]byte(nil), tampered[archiveName()]...)
	archive[len(archive)/2] ^= 0xff
	tampered[archiveName()] = archive
	reg.serveNamespace("tampered", tampered)

	wrongSig := rel.files(t)

	sig, err := rel.gpg(t.Context(), "--detach-sign", "--local-user", rel.other, "--output", "-",
		filepath.Join(rel.dir, sumsName()))
	if err != nil {
		t.Fatal(err)
	}

	wrongSig[sumsName()+".sig"] = []byte(sig)
	reg.serveNamespace("wrong-sig", wrongSig)

	for _, tc := range []struct {
		namespace string
		want      *regexp.Regexp
	}{
		// Terraform 1.11 and OpenTofu 1.12 say "archive has incorrect checksum zh:… (expected
		// zh:…)" and "authentication signature from unknown issuer".
		{"tampered", regexp.MustCompile(`(?is)incorrect checksum|checksum.{0,40}(mismatch|expected)`)},
		{"wrong-sig", regexp.MustCompile(`(?is)unknown issuer|signature.{0,40}(invalid|unknown|not valid)`)},
	} {
		t.Run(tc.namespace, func(t *testing.T) {
			c := newCLI(t, installConfig(reg.source(tc.namespace), acctest.RandomName()), "", "SSL_CERT_FILE="+reg.caFile)

			out, err := c.run("init", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("init installed the %s release:\n%s", tc.namespace, out)
			}

			if !tc.want.MatchString(out) {
				t.Errorf("init failed without saying why (want %s):\n%s", tc.want, out)
			}

			t.Logf("init of the %s release refused:\n%s", tc.namespace, out)

			if _, err := os.Stat(filepath.Join(c.dir, ".terraform.lock.hcl")); err == nil {
				t.Errorf("init of the %s release wrote a lock file", tc.namespace)
			}
		})
	}
}
