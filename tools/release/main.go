// Command release builds a release of terraform-provider-unikorn in the layout that provider
// registries serve and that .goreleaser.yml describes for the public pipeline (goreleaser is
// not needed, nor available on the project's machines):
//
//	terraform-provider-unikorn_<version>_<os>_<arch>.zip   (the binary terraform-provider-unikorn_v<version>[.exe] and LICENSE)
//	terraform-provider-unikorn_<version>_manifest.json     (terraform-registry-manifest.json)
//	terraform-provider-unikorn_<version>_SHA256SUMS        (the archives and the manifest)
//	terraform-provider-unikorn_<version>_SHA256SUMS.sig    (detached GPG signature)
//
// for linux, darwin, windows and freebsd on amd64 and arm64. The build is reproducible: every
// binary with -trimpath and -buildvcs=false, every archive entry with fixed modes and the
// commit's timestamp, sorted; two builds of one commit give the same SHA256SUMS (the signature
// carries its own time).
//
//	go run -C tools/release . -version 1.2.3 -out dist -clean      (make release VERSION=1.2.3)
//
// GPG_FINGERPRINT (or -gpg-fingerprint) names the signing key in the keyring of GNUPGHOME; it
// must be RSA or DSA, the only kinds the Terraform Registry accepts.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"
)

func main() {
	if err := realMain(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func realMain(args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	root := fs.String("root", "../..", "the repository to build")
	version := fs.String("version", "", "the release version, x.y.z (a leading v is dropped)")
	out := fs.String("out", "", "directory of the release (default ROOT/dist)")
	clean := fs.Bool("clean", false, "remove the output directory first when it is not empty")
	targets := fs.String("targets", "all", "comma list of OS/ARCH to build, or all (the 8 of .goreleaser.yml)")
	fingerprint := fs.String("gpg-fingerprint", os.Getenv("GPG_FINGERPRINT"), "the signing key (default $GPG_FINGERPRINT)")
	unsigned := fs.Bool("unsigned", false, "build without a signature (no registry takes such a release)")
	allowDirty := fs.Bool("allow-dirty", false, "build a work tree with uncommitted changes (a snapshot)")

	if err := fs.Parse(args); err != nil {
		return err
	}

	if *version == "" {
		return fmt.Errorf("-version x.y.z is required")
	}

	if *fingerprint == "" && !*unsigned {
		return fmt.Errorf("set GPG_FINGERPRINT (or -gpg-fingerprint) to the RSA key that signs the release, or -unsigned")
	}

	if *unsigned {
		*fingerprint = ""
	}

	ts, err := ParseTargets(*targets)
	if err != nil {
		return err
	}

	if *out == "" {
		*out = filepath.Join(*root, "dist")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	start := time.Now()

	res, err := Release(ctx, Options{
		Root: *root, Version: *version, Out: *out, Clean: *clean, Targets: ts,
		Fingerprint: *fingerprint, AllowDirty: *allowDirty, Log: os.Stderr,
	})
	if err != nil {
		return err
	}

	fmt.Printf("release %s in %s (%d targets, %.0f s; archive entries dated %s)\n",
		*version, res.Dir, len(ts), time.Since(start).Seconds(), res.Epoch.Format(time.RFC3339))

	for _, f := range res.Files {
		fmt.Printf("  %10d  %s\n", f.Size, f.Name)
	}

	sums, err := os.ReadFile(filepath.Join(res.Dir, SumsName(res.Version)))
	if err != nil {
		return err
	}

	fmt.Printf("%s:\n%s", SumsName(res.Version), sums)

	return nil
}
