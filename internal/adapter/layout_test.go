package adapter

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxFileLines is the size above which a file under internal/ must be split by what it holds.
const maxFileLines = 800

const (
	gophercloudRoot = "github.com/gophercloud/gophercloud/v2"
	frameworkPrefix = "github.com/hashicorp/terraform-plugin-framework"
)

// TestLayout checks the architecture of DESIGN.md §2 over every Go file under internal/:
// the kit makes no OpenStack call, cloud and naming know nothing of Terraform, no file
// outside cloud reads gophercloud's errors in the same file as framework types (cloud
// behaviour belongs in the cores), and no file grows past maxFileLines.
func TestLayout(t *testing.T) {
	t.Parallel()

	root := filepath.Join("..")
	fset := token.NewFileSet()

	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(file, ".go") {
			return err
		}

		rel, _ := filepath.Rel(root, file)
		pkg := filepath.ToSlash(filepath.Dir(rel))

		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}

		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("internal/%s has %d lines (at most %d): split it by what it holds", rel, n, maxFileLines)
		}

		f, err := parser.ParseFile(fset, file, src, parser.ImportsOnly)
		if err != nil {
			return err
		}

		var framework, gophercloud, gophercloudErrors bool

		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			framework = framework || strings.HasPrefix(p, frameworkPrefix)
			gophercloud = gophercloud || strings.HasPrefix(p, "github.com/gophercloud/")
			gophercloudErrors = gophercloudErrors || p == gophercloudRoot
		}

		test := strings.HasSuffix(file, "_test.go")

		switch {
		case pkg == "adapter" && gophercloud:
			t.Errorf("internal/%s: the kit makes no OpenStack call, but it imports gophercloud", rel)
		case (pkg == "cloud" || pkg == "naming") && framework:
			t.Errorf("internal/%s: %s has no Terraform types, but it imports the framework", rel, pkg)
		case !test && pkg != "cloud" && framework && gophercloudErrors:
			t.Errorf("internal/%s: reads gophercloud's errors beside framework types: move that cloud behaviour into the core", rel)
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
