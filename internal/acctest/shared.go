package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// serveProviderEnv makes a test binary serve the provider as a plugin instead of running tests
// (Main): the CLI that applies a SharedStack starts the test binary itself as the provider, so
// the stack is made by exactly the code under test, with no second build.
const serveProviderEnv = "UNIKORN_ACCTEST_SERVE_PROVIDER"

// SharedStack is a configuration that the tests of one package build on instead of each making
// the same objects (an identity and its network, say): it is applied once, by the first test
// that asks for it, through the CLI and this provider, and destroyed by Main once every test of
// the package has run. Its names carry NamePrefix, so the sweepers find what a killed run left.
//
// A test that uses a stack must not change or delete what is in it, and must not depend on
// being alone in its project: tests that prove something about the identity or the network
// themselves (their ownership, their deletion, their leftovers, a region rule) make their own.
type SharedStack struct {
	// Config is the HCL of the stack (resources and outputs; the provider comes from the
	// environment as in every test), given a fresh name.
	Config func(name string) string

	once    sync.Once
	dir     string
	outputs map[string]string
	err     error
}

var (
	stacksMu sync.Mutex
	stacks   []*SharedStack
)

// Outputs applies the stack the first time (other tests wait for it) and returns its outputs
// as strings. A stack that could not be applied fails every test that asks for it.
func (s *SharedStack) Outputs(t *testing.T) map[string]string {
	t.Helper()

	s.once.Do(func() {
		stacksMu.Lock()
		stacks = append(stacks, s)
		stacksMu.Unlock()

		s.outputs, s.err = s.apply()
	})

	if s.err != nil {
		t.Fatalf("shared stack: %v", s.err)
	}

	return s.outputs
}

func (s *SharedStack) apply() (map[string]string, error) {
	dir, err := os.MkdirTemp("", "unikorn-shared-stack-")
	if err != nil {
		return nil, err
	}

	s.dir = dir

	self, err := os.Executable()
	if err != nil {
		return nil, err
	}

	plugins := filepath.Join(dir, "plugins")
	if err := os.Mkdir(plugins, 0o700); err != nil {
		return nil, err
	}

	if err := os.Symlink(self, filepath.Join(plugins, "terraform-provider-unikorn")); err != nil {
		return nil, err
	}

	// dev_overrides: the CLI starts the test binary as the provider, without a registry and
	// without terraform init.
	cliConfig := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		providerSource, plugins)
	config := fmt.Sprintf("terraform {\n  required_providers {\n    unikorn = { source = %q }\n  }\n}\n%s",
		providerSource, s.Config(RandomName()))

	for name, content := range map[string]string{"cli.tfrc": cliConfig, "main.tf": config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return nil, err
		}
	}

	if _, err := s.cli("apply", "-auto-approve", "-input=false"); err != nil {
		return nil, err
	}

	out, err := s.cli("output", "-json")
	if err != nil {
		return nil, err
	}

	var raw map[string]struct {
		Value any `json:"value"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, fmt.Errorf("terraform output -json: %w", err)
	}

	outputs := make(map[string]string, len(raw))
	for k, v := range raw {
		outputs[k] = fmt.Sprint(v.Value)
	}

	return outputs, nil
}

// providerSource is the provider's address in a stack's configuration and CLI configuration
// (either CLI reads it under its own default registry host).
const providerSource = "unikorn-cloud/unikorn"

// cli runs the CLI of the acceptance tests (TF_ACC_TERRAFORM_PATH, else terraform) in the stack's
// directory and returns its standard output.
func (s *SharedStack) cli(args ...string) ([]byte, error) {
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if path == "" {
		path = "terraform"
	}

	cmd := exec.CommandContext(context.Background(), path, append(args, "-no-color")...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+filepath.Join(s.dir, "cli.tfrc"),
		"TF_IN_AUTOMATION=1",
		serveProviderEnv+"=1",
	)

	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %v: %w\n%s%s", filepath.Base(path), args[0], err, stdout.String(), stderr.String())
	}

	return stdout.Bytes(), nil
}

// destroyStacks destroys every stack applied in this test binary and removes its directory.
// A stack that fails to destroy is reported (the sweepers remove what it left) and kept on disk.
func destroyStacks() error {
	stacksMu.Lock()
	defer stacksMu.Unlock()

	var errs []error

	for _, s := range stacks {
		if s.dir == "" {
			continue
		}

		if _, err := s.cli("destroy", "-auto-approve", "-input=false"); err != nil {
			errs = append(errs, fmt.Errorf("shared stack in %s: %w", s.dir, err))
			continue
		}

		_ = os.RemoveAll(s.dir)
	}

	return errors.Join(errs...)
}

// withStacks runs the tests, then destroys the shared stacks they applied: a failed destroy
// fails the run.
type withStacks struct{ m *testing.M }

func (w withStacks) Run() int {
	code := w.m.Run()

	if err := destroyStacks(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)

		if code == 0 {
			code = 1
		}
	}

	return code
}

// serveProvider serves the provider as a plugin of the CLI (the test binary started by the CLI
// of a SharedStack).
func serveProvider() {
	opts := providerserver.ServeOpts{Address: "registry.terraform.io/" + providerSource, ProtocolVersion: 6}

	if err := providerserver.Serve(context.Background(), provider.New("acctest"), opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	os.Exit(0)
}
