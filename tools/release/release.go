package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProjectName names every artifact and the binary: Terraform and OpenTofu refuse a provider
// whose archive or binary is not called terraform-provider-<type>.
const ProjectName = "terraform-provider-unikorn"

// Target is one operating system and architecture of a release.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// GOOS and GOARCH are the release's platforms: every pair of them is built (the builds'
// goos × goarch of .goreleaser.yml).
var (
	GOOS   = []string{"linux", "darwin", "windows", "freebsd"}
	GOARCH = []string{"amd64", "arm64"}
)

// AllTargets are the 8 platforms of a release.
func AllTargets() []Target {
	var out []Target

	for _, goos := range GOOS {
		for _, goarch := range GOARCH {
			out = append(out, Target{goos, goarch})
		}
	}

	return out
}

// ParseTargets reads "linux/amd64,darwin/arm64"; "" or "all" is AllTargets.
func ParseTargets(s string) ([]Target, error) {
	if s == "" || s == "all" {
		return AllTargets(), nil
	}

	var out []Target

	for _, item := range strings.Split(s, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(item), "/")
		t := Target{goos, goarch}

		if !ok || !slices.Contains(AllTargets(), t) {
			return nil, fmt.Errorf("target %q: want OS/ARCH among %v", item, AllTargets())
		}

		if slices.Contains(out, t) {
			return nil, fmt.Errorf("target %s given twice", t)
		}

		out = append(out, t)
	}

	return out, nil
}

// The names of a release's files (the name templates of .goreleaser.yml).

// BinaryName is the provider binary inside an archive.
func BinaryName(version string, t Target) string {
	name := ProjectName + "_v" + version
	if t.OS == "windows" {
		name += ".exe"
	}

	return name
}

// ArchiveName is the zip of one platform.
func ArchiveName(version string, t Target) string {
	return fmt.Sprintf("%s_%s_%s_%s.zip", ProjectName, version, t.OS, t.Arch)
}

// SumsName is the checksum file of the archives and the manifest.
func SumsName(version string) string { return ProjectName + "_" + version + "_SHA256SUMS" }

// SignatureName is the detached GPG signature of the checksum file.
func SignatureName(version string) string { return SumsName(version) + ".sig" }

// ManifestName is the registry manifest (terraform-registry-manifest.json) of the release.
func ManifestName(version string) string { return ProjectName + "_" + version + "_manifest.json" }

// Build settings (the builds entry of .goreleaser.yml).
var (
	// BuildEnv is set for every build (besides GOOS and GOARCH, and GOFLAGS, GOAMD64 and
	// GOARM64 pinned to Go's defaults so that the machine's environment cannot change the
	// binaries).
	BuildEnv = []string{"CGO_ENABLED=0"}
	// BuildFlags are go build's flags; -buildvcs=false keeps the tree's state (an untracked
	// file) out of the binary, so that two builds of one commit are the same bytes.
	BuildFlags = []string{"-trimpath", "-buildvcs=false"}
)

// LDFlags are the linker flags of a version: no symbol table, no DWARF, the version in
// main.version.
func LDFlags(version string) string { return "-s -w -X main.version=" + version }

// LicenseFile is put in every archive beside the binary.
const LicenseFile = "LICENSE"

// ManifestSource is the registry manifest in the repository.
const ManifestSource = "terraform-registry-manifest.json"

// semver is a release version without the leading v (what registries list).
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// NormalizeVersion accepts x.y.z or vx.y.z (a tag) and returns x.y.z.
func NormalizeVersion(v string) (string, error) {
	v = strings.TrimPrefix(v, "v")
	if !semver.MatchString(v) {
		return "", fmt.Errorf("version %q is not a semantic version x.y.z (the registries list nothing else)", v)
	}

	return v, nil
}

// Options are what a release is built from and where it goes.
type Options struct {
	Root        string   // the repository (the provider's module)
	Version     string   // x.y.z
	Out         string   // directory of the release's files
	Clean       bool     // remove Out first when it is not empty
	Targets     []Target // default AllTargets
	Fingerprint string   // the GPG key that signs SHA256SUMS; "" leaves the release unsigned
	AllowDirty  bool     // build a tree with uncommitted changes (snapshots and tests)
	Log         io.Writer
}

// File is one file of a release.
type File struct {
	Name   string
	Size   int64
	SHA256 string
}

// Result is a built release.
type Result struct {
	Dir     string
	Version string
	Files   []File // sorted by name
	// Epoch is the timestamp of every archive entry (the commit's, or SOURCE_DATE_EPOCH).
	Epoch time.Time
}

// Release builds the release: the archives, the manifest, SHA256SUMS and its signature.
func Release(ctx context.Context, o Options) (*Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}

	version, err := NormalizeVersion(o.Version)
	if err != nil {
		return nil, err
	}

	if len(o.Targets) == 0 {
		o.Targets = AllTargets()
	}

	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}

	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}

	if err := checkTree(ctx, root, o.AllowDirty); err != nil {
		return nil, err
	}

	epoch, err := sourceEpoch(ctx, root)
	if err != nil {
		return nil, err
	}

	if o.Fingerprint != "" {
		if err := CheckSigningKey(ctx, o.Fingerprint); err != nil {
			return nil, err
		}
	}

	// the before hook: the module cache holds what go.sum says (a tidy would change the tree)
	if err := run(ctx, root, nil, o.Log, "go", "mod", "verify"); err != nil {
		return nil, err
	}

	license, err := os.ReadFile(filepath.Join(root, LicenseFile))
	if err != nil {
		return nil, fmt.Errorf("every archive holds the %s: %w", LicenseFile, err)
	}

	manifest, err := os.ReadFile(filepath.Join(root, ManifestSource))
	if err != nil {
		return nil, err
	}

	if err := prepareOut(out, o.Clean); err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp("", "release-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	for _, t := range o.Targets {
		start := time.Now()
		bin := filepath.Join(tmp, t.OS+"_"+t.Arch, BinaryName(version, t))

		if err := buildBinary(ctx, root, bin, version, t, o.Log); err != nil {
			return nil, err
		}

		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}

		entries := []ZipEntry{
			{Name: BinaryName(version, t), Mode: 0o755, Data: data},
			{Name: LicenseFile, Mode: 0o644, Data: license},
		}

		if err := WriteZip(filepath.Join(out, ArchiveName(version, t)), entries, epoch); err != nil {
			return nil, err
		}

		fmt.Fprintf(o.Log, "release: %s built and archived in %.1f s\n", t, time.Since(start).Seconds())
	}

	if err := os.WriteFile(filepath.Join(out, ManifestName(version)), manifest, 0o644); err != nil {
		return nil, err
	}

	sums, err := Checksums(out, version, o.Targets)
	if err != nil {
		return nil, err
	}

	sumsPath := filepath.Join(out, SumsName(version))
	if err := os.WriteFile(sumsPath, sums, 0o644); err != nil {
		return nil, err
	}

	if o.Fingerprint != "" {
		if err := run(ctx, out, nil, o.Log, "gpg", "--batch", "--yes", "--local-user", o.Fingerprint,
			"--output", filepath.Join(out, SignatureName(version)), "--detach-sign", sumsPath); err != nil {
			return nil, fmt.Errorf("signing %s: %w", SumsName(version), err)
		}
	}

	files, err := listFiles(out)
	if err != nil {
		return nil, err
	}

	return &Result{Dir: out, Version: version, Files: files, Epoch: epoch}, nil
}

// checkTree refuses a tree with uncommitted changes (goreleaser does too): the release would
// not be the commit's.
func checkTree(ctx context.Context, root string, allowDirty bool) error {
	var status bytes.Buffer
	if err := run(ctx, root, nil, &status, "git", "status", "--porcelain"); err != nil {
		return fmt.Errorf("%s is not a git work tree: %w", root, err)
	}

	if status.Len() > 0 && !allowDirty {
		return fmt.Errorf("the work tree has uncommitted changes (commit them, or -allow-dirty for a snapshot):\n%s", status.String())
	}

	return nil
}

// sourceEpoch is SOURCE_DATE_EPOCH when set, else the timestamp of the commit at HEAD:
// goreleaser's mod_timestamp "{{ .CommitTimestamp }}".
func sourceEpoch(ctx context.Context, root string) (time.Time, error) {
	text := os.Getenv("SOURCE_DATE_EPOCH")
	if text == "" {
		var out bytes.Buffer
		if err := run(ctx, root, nil, &out, "git", "log", "-1", "--format=%ct", "HEAD"); err != nil {
			return time.Time{}, err
		}

		text = strings.TrimSpace(out.String())
	}

	secs, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("source timestamp %q: %w", text, err)
	}

	return time.Unix(secs, 0).UTC(), nil
}

// prepareOut makes an empty directory for the release.
func prepareOut(out string, clean bool) error {
	entries, err := os.ReadDir(out)
	if err == nil && len(entries) > 0 {
		if !clean {
			return fmt.Errorf("%s is not empty (-clean removes it first)", out)
		}

		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}

	return os.MkdirAll(out, 0o755)
}

// buildBinary cross-compiles the provider for t.
func buildBinary(ctx context.Context, root, bin, version string, t Target, log io.Writer) error {
	env := append([]string{}, BuildEnv...)
	env = append(env, "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0")

	args := append([]string{"build"}, BuildFlags...)
	args = append(args, "-ldflags", LDFlags(version), "-o", bin, ".")

	if err := run(ctx, root, env, log, "go", args...); err != nil {
		return fmt.Errorf("building %s: %w", t, err)
	}

	return nil
}

// Checksums is the SHA256SUMS of a release in dir: one "<sha256>  <name>" line per archive
// and the manifest, sorted by name (what goreleaser writes and `sha256sum -c` reads).
func Checksums(dir, version string, targets []Target) ([]byte, error) {
	names := []string{ManifestName(version)}
	for _, t := range targets {
		names = append(names, ArchiveName(version, t))
	}

	slices.Sort(names)

	var b bytes.Buffer

	for _, name := range names {
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}

		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}

	return b.Bytes(), nil
}

// ParseChecksums reads a SHA256SUMS file into name → hex digest.
func ParseChecksums(data []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))

	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			return nil, fmt.Errorf("SHA256SUMS line %q: want \"<sha256>  <name>\"", sc.Text())
		}

		out[name] = sum
	}

	return out, sc.Err()
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()

	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}

	return hex.EncodeToString(h.Sum(nil)), nil
}

func listFiles(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}

	var files []File

	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return nil, err
		}

		sum, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}

		files = append(files, File{Name: e.Name(), Size: info.Size(), SHA256: sum})
	}

	return files, nil
}

// run runs a command in dir with env added to the process's, its output to log (stdout) and
// its stderr kept for the error.
func run(ctx context.Context, dir string, env []string, log io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = log

	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}

		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, msg)
	}

	return nil
}

// errKeyAlgorithm is a signing key that the Terraform Registry would refuse.
var errKeyAlgorithm = errors.New("the Terraform Registry accepts only RSA or DSA signing keys")
