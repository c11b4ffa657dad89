package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNames(t *testing.T) {
	t.Parallel()

	linux := Target{"linux", "amd64"}
	windows := Target{"windows", "arm64"}

	for got, want := range map[string]string{
		BinaryName("1.2.3", linux):    "terraform-provider-unikorn_v1.2.3",
		BinaryName("1.2.3", windows):  "terraform-provider-unikorn_v1.2.3.exe",
		ArchiveName("1.2.3", linux):   "terraform-provider-unikorn_1.2.3_linux_amd64.zip",
		ArchiveName("1.2.3", windows): "terraform-provider-unikorn_1.2.3_windows_arm64.zip",
		SumsName("1.2.3"):             "terraform-provider-unikorn_1.2.3_SHA256SUMS",
		SignatureName("1.2.3"):        "terraform-provider-unikorn_1.2.3_SHA256SUMS.sig",
		ManifestName("1.2.3"):         "terraform-provider-unikorn_1.2.3_manifest.json",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}

	if n := len(AllTargets()); n != 8 {
		t.Errorf("%d targets, want 8", n)
	}
}

func TestNormalizeVersion(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]string{"1.2.3": "1.2.3", "v0.1.0": "0.1.0", "1.0.0-rc.1": "1.0.0-rc.1"} {
		if got, err := NormalizeVersion(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}

	for _, bad := range []string{"", "dev", "1.2", "01.2.3", "1.2.3.4", "v"} {
		if _, err := NormalizeVersion(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseTargets(t *testing.T) {
	t.Parallel()

	if ts, err := ParseTargets("linux/amd64, darwin/arm64"); err != nil || len(ts) != 2 || ts[1] != (Target{"darwin", "arm64"}) {
		t.Errorf("%v %v", ts, err)
	}

	for _, bad := range []string{"linux", "plan9/amd64", "linux/386", "linux/amd64,linux/amd64"} {
		if _, err := ParseTargets(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestZipReproducible: the same entries give the same bytes whatever their order, the
// machine's time zone or the time of day; the entries come out sorted, with their modes and
// the one timestamp.
func TestZipReproducible(t *testing.T) {
	t.Parallel()

	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("X", 5*3600))
	entries := []ZipEntry{
		{Name: "terraform-provider-unikorn_v1.2.3", Mode: 0o755, Data: bytes.Repeat([]byte("binary"), 1000)},
		{Name: "LICENSE", Mode: 0o644, Data: []byte("Apache License")},
	}

	a, err := ZipBytes(entries, when)
	if err != nil {
		t.Fatal(err)
	}

	b, err := ZipBytes([]ZipEntry{entries[1], entries[0]}, when.UTC())
	if err != nil {
		t.Fatal(err)
	}

	if !bytes.Equal(a, b) {
		t.Fatal("two archives of the same entries differ")
	}

	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}

	want := []struct {
		name string
		mode os.FileMode
	}{{"LICENSE", 0o644}, {"terraform-provider-unikorn_v1.2.3", 0o755}}

	if len(zr.File) != len(want) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(want))
	}

	for i, f := range zr.File {
		if f.Name != want[i].name || f.Mode() != want[i].mode || !f.Modified.Equal(when) || f.Method != zip.Deflate {
			t.Errorf("entry %d: %s %v %v method %d, want %s %v %v deflated", i, f.Name, f.Mode(), f.Modified, f.Method,
				want[i].name, want[i].mode, when)
		}
	}
}

func TestChecksums(t *testing.T) {
	t.Parallel()

	dir := t.TempDir()
	ts := []Target{{"linux", "amd64"}, {"darwin", "arm64"}}

	for _, name := range []string{ArchiveName("1.0.0", ts[0]), ArchiveName("1.0.0", ts[1]), ManifestName("1.0.0")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	sums, err := Checksums(dir, "1.0.0", ts)
	if err != nil {
		t.Fatal(err)
	}

	parsed, err := ParseChecksums(sums)
	if err != nil {
		t.Fatal(err)
	}

	if len(parsed) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(parsed), sums)
	}

	lines := bytes.Split(bytes.TrimSpace(sums), []byte("\n"))
	if !bytes.HasSuffix(lines[0], []byte("  "+ArchiveName("1.0.0", ts[1]))) ||
		!bytes.HasSuffix(lines[2], []byte("  "+ManifestName("1.0.0"))) {
		t.Errorf("not sorted by name:\n%s", sums)
	}

	if _, err := ParseChecksums([]byte("abc x\n")); err == nil {
		t.Error("a malformed line accepted")
	}
}

// TestCheckKeyAlgorithms: an RSA or DSA key passes; an EdDSA key, or an RSA key with an EdDSA
// signing subkey (gpg signs with the newest subkey), is refused saying why.
func TestCheckKeyAlgorithms(t *testing.T) {
	t.Parallel()

	const (
		rsa     = "sec:u:3072:1:AAAA:1700000000:::u:::scESC:::+:::23::0:\nfpr:::::::::AAAA:\n"
		dsa     = "sec:u:2048:17:AAAA:1700000000:::u:::scESC:::+:::23::0:\n"
		eddsa   = "sec:u:255:22:AAAA:1700000000:::u:::scESC:::+:::ed25519:::0:\n"
		edSub   = "ssb:u:255:22:BBBB:1700000001::::::s:::+:::ed25519::\n"
		rsaEnc  = "ssb:u:3072:1:CCCC:1700000000::::::e:::+:::23::\n"
		revoked = "ssb:r:255:22:DDDD:1700000001::::::s:::+:::ed25519::\n"
	)

	for _, ok := range []string{rsa, dsa, rsa + rsaEnc, rsa + revoked} {
		if err := checkKeyAlgorithms("AAAA", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}

	for _, bad := range []string{eddsa, rsa + edSub} {
		if err := checkKeyAlgorithms("AAAA", bad); !errors.Is(err, errKeyAlgorithm) {
			t.Errorf("%q: %v, want %v", bad, err, errKeyAlgorithm)
		}
	}

	if err := checkKeyAlgorithms("AAAA", "sec:u:3072:1:AAAA:1700000000:::u:::e:::+:::23::0:\n"); err == nil {
		t.Error("a key that cannot sign accepted")
	}
}
