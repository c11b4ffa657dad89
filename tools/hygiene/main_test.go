package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pe is a minimal MZ header whose e_lfanew points at a "PE\0\0" signature.
func pe() []byte {
	b := make([]byte, 0x90)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], 0x80)
	copy(b[0x80:], "PE\x00\x00")
	return b
}

func TestCheck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	self, err := os.ReadFile("/proc/self/exe") // this test binary: a real compiled binary
	if err != nil || runtime.GOOS != "linux" {
		self = append([]byte{0x7f, 'E', 'L', 'F'}, make([]byte, 60)...)
	}
	write(t, dir, "README.md", []byte("# fine\n"))
	write(t, dir, "tools/x/x", self)                                                       // compiled, committed by mistake
	write(t, dir, "mac/tool", append([]byte{0xcf, 0xfa, 0xed, 0xfe}, make([]byte, 28)...)) // Mach-O 64
	write(t, dir, "win/tool.exe", pe())
	write(t, dir, "big.json", bytes.Repeat([]byte("a"), 1<<20+1))
	write(t, dir, "limit.txt", bytes.Repeat([]byte("b"), 1<<20)) // exactly 1 MiB: allowed
	write(t, dir, "mz.txt", []byte("MZ is how this note begins, and it is no executable\n"))
	write(t, dir, "with space/a b", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	write(t, dir, "tiny", []byte("MZ"))
	if err := os.Symlink("/bin/sh", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	write(t, dir, "untracked.bin", self) // not tracked: not ours to judge
	git(t, dir, "commit", "-q", "-m", "fixture")

	findings, tracked, err := Check(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if tracked != 10 {
		t.Errorf("%d tracked files, want 10", tracked)
	}
	got := map[string]string{}
	for _, f := range findings {
		got[f.Path] += f.Reason + ";"
	}
	want := map[string]string{
		"tools/x/x":      "ELF",
		"mac/tool":       "Mach-O binary",
		"win/tool.exe":   "PE (Windows) executable",
		"big.json":       "1048577 bytes, over the limit of 1048576",
		"with space/a b": "ELF",
	}
	for p, reason := range want {
		if !strings.Contains(got[p], reason) {
			t.Errorf("%s: %q, want it named for %q", p, got[p], reason)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s named (%s), but it is allowed", p, got[p])
		}
	}

	// the command: exit 1 naming the files; exit 0 once they are gone
	cmd := exec.Command("go", "run", ".", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("go run . %s: %v, want exit 1\n%s", dir, err, stderr.String())
	}
	for p := range want {
		if !strings.Contains(stderr.String(), "  "+p+": ") {
			t.Errorf("output does not name %s:\n%s", p, stderr.String())
		}
	}
	git(t, dir, "rm", "-q", "--cached", "tools/x/x", "mac/tool", "win/tool.exe", "big.json", "with space/a b")
	findings, _, err = Check(dir, 1<<20)
	if err != nil || len(findings) != 0 {
		t.Errorf("after git rm --cached: %v %v", findings, err)
	}
	if out, err := exec.Command("go", "run", ".", dir).CombinedOutput(); err != nil || !strings.Contains(string(out), "hygiene: 5 tracked files") {
		t.Errorf("clean tree: %v\n%s", err, out)
	}
}

func TestCheckNotARepository(t *testing.T) {
	if _, _, err := Check(t.TempDir(), 1<<20); err == nil {
		t.Error("no error outside a git work tree")
	}
}

func TestBinaryKindShort(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("MZ"), []byte("MZ\x90\x00"), {0x7f, 'E', 'L'}} {
		if k := binaryKind(bytes.NewReader(b)); k != "" {
			t.Errorf("%q: %q", b, k)
		}
	}
	if k := binaryKind(bytes.NewReader(pe())); k != "PE (Windows) executable" {
		t.Errorf("pe: %q", k)
	}
}
