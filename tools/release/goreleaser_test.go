package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// goreleaserConfig is the part of .goreleaser.yml that the tool must agree with.
type goreleaserConfig struct {
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		Env          []string `yaml:"env"`
		ModTimestamp string   `yaml:"mod_timestamp"`
		Flags        []string `yaml:"flags"`
		LDFlags      []string `yaml:"ldflags"`
		GOOS         []string `yaml:"goos"`
		GOARCH       []string `yaml:"goarch"`
		Binary       string   `yaml:"binary"`
	} `yaml:"builds"`
	Archives []struct {
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
		Files        []struct {
			Src  string `yaml:"src"`
			Info struct {
				MTime string `yaml:"mtime"`
				Mode  int    `yaml:"mode"`
			} `yaml:"info"`
		} `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
		ExtraFiles   []struct {
			Glob         string `yaml:"glob"`
			NameTemplate string `yaml:"name_template"`
		} `yaml:"extra_files"`
	} `yaml:"checksum"`
	Signs []struct {
		Artifacts string   `yaml:"artifacts"`
		Args      []string `yaml:"args"`
	} `yaml:"signs"`
	Release struct {
		ExtraFiles []struct {
			Glob         string `yaml:"glob"`
			NameTemplate string `yaml:"name_template"`
		} `yaml:"extra_files"`
	} `yaml:"release"`
}

var templateField = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// render expands goreleaser's {{ .Field }} templates from vars; an unknown field fails.
func render(t *testing.T, tmpl string, vars map[string]string) string {
	t.Helper()

	return templateField.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := templateField.FindStringSubmatch(m)[1]

		v, ok := vars[name]
		if !ok {
			t.Fatalf("template %q uses {{ .%s }}, which this test does not know", tmpl, name)
		}

		return v
	})
}

// TestGoreleaserAgrees: .goreleaser.yml (the public pipeline) and this tool build the same
// release: names, platforms, flags, archive contents, checksums and signature.
func TestGoreleaserAgrees(t *testing.T) {
	t.Parallel()

	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}

	var cfg goreleaserConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}

	if cfg.ProjectName != ProjectName {
		t.Errorf("project_name %q, want %q (without it goreleaser names everything after the clone's folder or remote)", cfg.ProjectName, ProjectName)
	}

	if !slices.Equal(cfg.Before.Hooks, []string{"go mod verify"}) {
		t.Errorf("before hooks %q, want only `go mod verify` (as the tool runs; a tidy would change the tagged tree)", cfg.Before.Hooks)
	}

	if !strings.Contains(string(data), "RSA") {
		t.Error(".goreleaser.yml does not say that the signing key must be RSA")
	}

	const version = "1.2.3"

	if len(cfg.Builds) != 1 || len(cfg.Archives) != 1 || len(cfg.Signs) != 1 {
		t.Fatalf("want one build, one archive and one sign entry, got %d, %d, %d", len(cfg.Builds), len(cfg.Archives), len(cfg.Signs))
	}

	b := cfg.Builds[0]
	if !slices.Equal(b.GOOS, GOOS) || !slices.Equal(b.GOARCH, GOARCH) {
		t.Errorf("goos %q goarch %q, the tool builds %q × %q", b.GOOS, b.GOARCH, GOOS, GOARCH)
	}

	if !slices.Equal(b.Env, BuildEnv) {
		t.Errorf("build env %q, the tool's %q", b.Env, BuildEnv)
	}

	if !slices.Equal(b.Flags, BuildFlags) {
		t.Errorf("build flags %q, the tool's %q", b.Flags, BuildFlags)
	}

	if len(b.LDFlags) != 1 || render(t, b.LDFlags[0], map[string]string{"Version": version}) != LDFlags(version) {
		t.Errorf("ldflags %q, the tool's %q", b.LDFlags, LDFlags(version))
	}

	if b.ModTimestamp != "{{ .CommitTimestamp }}" {
		t.Errorf("mod_timestamp %q: the tool dates every entry with the commit's timestamp", b.ModTimestamp)
	}

	a := cfg.Archives[0]
	if !slices.Equal(a.Formats, []string{"zip"}) {
		t.Errorf("archive formats %q, want zip", a.Formats)
	}

	if len(a.Files) != 1 || a.Files[0].Src != LicenseFile || a.Files[0].Info.Mode != 0o644 ||
		a.Files[0].Info.MTime != "{{ .CommitDate }}" {
		t.Errorf("archive files %+v, want only %s, mode 0644, dated by the commit", a.Files, LicenseFile)
	}

	for _, target := range AllTargets() {
		vars := map[string]string{"ProjectName": cfg.ProjectName, "Version": version, "Os": target.OS, "Arch": target.Arch}

		bin := render(t, b.Binary, vars)
		if target.OS == "windows" {
			bin += ".exe" // goreleaser adds it
		}

		if bin != BinaryName(version, target) {
			t.Errorf("%s: binary %q, the tool's %q", target, bin, BinaryName(version, target))
		}

		if got := render(t, a.NameTemplate, vars) + ".zip"; got != ArchiveName(version, target) {
			t.Errorf("%s: archive %q, the tool's %q", target, got, ArchiveName(version, target))
		}
	}

	vars := map[string]string{"ProjectName": cfg.ProjectName, "Version": version}
	if got := render(t, cfg.Checksum.NameTemplate, vars); got != SumsName(version) || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %q (%s), the tool's %q (sha256)", got, cfg.Checksum.Algorithm, SumsName(version))
	}

	for what, extra := range map[string][]struct {
		Glob         string `yaml:"glob"`
		NameTemplate string `yaml:"name_template"`
	}{"checksum": cfg.Checksum.ExtraFiles, "release": cfg.Release.ExtraFiles} {
		if len(extra) != 1 || extra[0].Glob != ManifestSource || render(t, extra[0].NameTemplate, vars) != ManifestName(version) {
			t.Errorf("%s extra_files %+v, want %s as %s", what, extra, ManifestSource, ManifestName(version))
		}
	}

	s := cfg.Signs[0]
	if s.Artifacts != "checksum" || !slices.Contains(s.Args, "--detach-sign") || !slices.Contains(s.Args, "{{ .Env.GPG_FINGERPRINT }}") {
		t.Errorf("signs %+v: want a detached signature of the checksum file by GPG_FINGERPRINT", s)
	}
}
