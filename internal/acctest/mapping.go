package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// MappedIdentity is what Keystone's mapping engine derives from an assertion.
type MappedIdentity struct {
	User struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"user"`
	GroupNames []struct {
		Name   string `json:"name"`
		Domain struct {
			ID string `json:"id"`
		} `json:"domain"`
	} `json:"group_names"`
}

// HasMappingEngine tells whether MappingEngine can run: on the local bed only, whose
// keystone-manage is at hand. A test that proves a mapping only along the way asks it, to
// prove the rest on any cloud.
func HasMappingEngine() bool {
	return !External()
}

// MappingEngine feeds the assertion (lines "ATTRIBUTE: value", ";" between the values of a
// list) to Keystone's own mapping engine on the local cloud (keystone-manage mapping_engine,
// through tools/openstack-lite's mapping-engine of the bed the environment points at) with the
// rules (Keystone's rule list, JSON). It returns what Keystone maps the assertion to, or the
// engine's error output when nothing maps.
//
// The bed is the directory of OS_CLIENT_CONFIG_FILE (its state, where openstack-lite writes
// clouds.yaml), its release OPENSTACK_LITE_RELEASE or else the one that directory is named
// after (".cache/openstack-lite-2025.1" holds a chroot in root/; ".cache/openstack-lite" is Zed).
// On another cloud, whose keystone-manage is out of reach, the test skips here.
func MappingEngine(ctx context.Context, t *testing.T, rules, assertion string) (*MappedIdentity, string, error) {
	t.Helper()
	LocalBedOnly(t, "it runs Keystone's mapping engine (keystone-manage mapping_engine) of the bed")

	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}

	script := filepath.Join(root, "tools", "openstack-lite", "openstack-lite")
	bed := filepath.Dir(os.Getenv("OS_CLIENT_CONFIG_FILE"))

	release := os.Getenv("OPENSTACK_LITE_RELEASE")
	if release == "" {
		release = "zed"
		if _, err := os.Stat(filepath.Join(bed, "root")); err == nil {
			release = strings.TrimPrefix(filepath.Base(bed), "openstack-lite-")
		}
	}

	dir := t.TempDir()
	rulesFile, inputFile := filepath.Join(dir, "rules.json"), filepath.Join(dir, "assertion.txt")

	for file, content := range map[string]string{rulesFile: rules, inputFile: assertion} {
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	var stdout, stderr bytes.Buffer

	cmd := exec.CommandContext(ctx, script, "mapping-engine", "--release", release, rulesFile, inputFile)
	cmd.Env = append(os.Environ(), "OPENSTACK_LITE_STATE="+bed)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), fmt.Errorf("%s mapping-engine (release %s, bed %s): %w", script, release, bed, err)
	}

	var out MappedIdentity
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, stderr.String(), fmt.Errorf("reading the mapping engine's answer %q: %w", stdout.String(), err)
	}

	return &out, stderr.String(), nil
}

// moduleRoot is the directory of the go.mod above the working directory (go test runs a
// package's tests in its own directory). The source path of this file would not do: make test
// builds with -trimpath, which leaves it relative to the module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}

	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}

		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}

		dir = parent
	}
}
