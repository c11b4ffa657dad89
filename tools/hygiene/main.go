// Command hygiene fails when a file tracked by git is a compiled binary (ELF, Mach-O, PE or
// WebAssembly, by its magic bytes) or larger than 1 MiB, naming each such file. Build outputs
// belong in .gitignore, never in a commit. Part of `make test` (make hygiene).
//
// Usage: go run -C tools/hygiene . [-max BYTES] [DIR]   (DIR: a git work tree, default ".")
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Finding is one tracked file that must not be committed.
type Finding struct {
	Path   string
	Reason string
}

// binaryKind names the kind of compiled binary whose first bytes (and, for an MZ header, the
// bytes at its PE offset) r holds; "" when it is none.
func binaryKind(r io.ReaderAt) string {
	head := make([]byte, 4)
	if n, _ := r.ReadAt(head, 0); n < 4 {
		return ""
	}
	switch {
	case bytes.Equal(head, []byte{0x7f, 'E', 'L', 'F'}):
		return "ELF executable or object"
	case bytes.Equal(head, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.Equal(head, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.Equal(head, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.Equal(head, []byte{0xcf, 0xfa, 0xed, 0xfe}):
		return "Mach-O binary"
	case bytes.Equal(head, []byte{0xca, 0xfe, 0xba, 0xbe}), bytes.Equal(head, []byte{0xbe, 0xba, 0xfe, 0xca}):
		return "Mach-O universal binary (or Java class)"
	case bytes.Equal(head, []byte{0, 'a', 's', 'm'}):
		return "WebAssembly module"
	case head[0] == 'M' && head[1] == 'Z':
		// a PE image has "PE\0\0" at the offset stored at 0x3c (a text file may begin with MZ)
		off := make([]byte, 4)
		if n, _ := r.ReadAt(off, 0x3c); n < 4 {
			return ""
		}
		sig := make([]byte, 4)
		if n, _ := r.ReadAt(sig, int64(binary.LittleEndian.Uint32(off))); n == 4 && bytes.Equal(sig, []byte{'P', 'E', 0, 0}) {
			return "PE (Windows) executable"
		}
	}
	return ""
}

// Check lists the tracked files of the work tree dir that are compiled binaries or larger
// than maxBytes. Symlinks, submodules and tracked files deleted from the work tree are skipped.
func Check(dir string, maxBytes int64) (findings []Finding, tracked int, err error) {
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		return nil, 0, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		tracked++
		path := string(p)
		fi, err := os.Lstat(filepath.Join(dir, path))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > maxBytes {
			findings = append(findings, Finding{path, fmt.Sprintf("%d bytes, over the limit of %d", fi.Size(), maxBytes)})
		}
		f, err := os.Open(filepath.Join(dir, path))
		if err != nil {
			return nil, tracked, err
		}
		kind := binaryKind(f)
		_ = f.Close()
		if kind != "" {
			findings = append(findings, Finding{path, kind})
		}
	}
	return findings, tracked, nil
}

func main() {
	maxBytes := flag.Int64("max", 1<<20, "largest size allowed for a tracked file, in bytes")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	findings, tracked, err := Check(dir, *maxBytes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hygiene:", err)
		os.Exit(2)
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "hygiene: tracked files that must not be committed (a compiled binary or over %d bytes):\n", *maxBytes)
		for _, f := range findings {
			fmt.Fprintf(os.Stderr, "  %s: %s\n", f.Path, f.Reason)
		}
		fmt.Fprintln(os.Stderr, "remove them with 'git rm --cached FILE' and ignore build outputs in .gitignore")
		os.Exit(1)
	}
	fmt.Printf("hygiene: %d tracked files, none a compiled binary or over %d bytes\n", tracked, *maxBytes)
}
