package image

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// validProps is a minimal property set that passes the schema.
func validProps() map[string]any {
	return map[string]any{
		PropertyOSKernel:       "linux",
		PropertyOSFamily:       "debian",
		PropertyOSDistro:       "ubuntu",
		PropertyOSVersion:      "24.04",
		PropertyVirtualization: "virtualized",
	}
}

// absent deletes a key in with.
var absent = struct{ absent bool }{true}

// with returns validProps changed by set; the value absent deletes a key
// and nil sets it to JSON null.
func with(set map[string]any) map[string]any {
	p := validProps()

	for k, v := range set {
		if v == absent {
			delete(p, k)

			continue
		}

		p[k] = v
	}

	return p
}

func TestValidate(t *testing.T) {
	t.Parallel()

	full := with(map[string]any{
		PropertyOSVariant:                  "server",
		PropertyOSCodename:                 "noble",
		"unikorn:package:kubernetes":       "v1.31.0",
		"unikorn:package:slurmd":           "v24.5.1",
		"unikorn:package:nvidia-toolkit":   "1.14-beta",
		PropertyGPUVendor:                  "NVIDIA",
		PropertyGPUModels:                  "H100,A100,L40S",
		PropertyGPUDriverVersion:           "550.54.15",
		"unikorn:tag:team":                 "ml",
		PropertyDigest:                     "MEUCIQ==",
		PropertyOrganizationID:             "org-1",
		PropertyLegacyKubernetesVersion:    "not checked when the package key is set",
		"unikorn:something_new":            42.0,
		"architecture":                     "x86_64",
		"stores":                           []any{"file"},
		"os_hash_value":                    nil,
		"hw_disk_bus":                      "scsi",
		"properties":                       "legacy properties field",
		"unikorn:os:kernel_extra_unrelate": true,
	})

	tests := []struct {
		name  string
		props map[string]any
		want  []string
	}{
		{name: "minimal", props: validProps()},
		{name: "full, extra keys allowed", props: full},
		{name: "any virtualization", props: with(map[string]any{PropertyVirtualization: "any"})},
		{name: "baremetal virtualization", props: with(map[string]any{PropertyVirtualization: "baremetal"})},
		{name: "AMD GPU", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X", PropertyGPUDriverVersion: "6.1"})},
		{name: "legacy kubernetes version", props: with(map[string]any{PropertyLegacyKubernetesVersion: "v1.28.5"})},
		{name: "nil properties", props: nil, want: []string{
			`property "unikorn:os:kernel" is required`,
			`property "unikorn:os:family" is required`,
			`property "unikorn:os:distro" is required`,
			`property "unikorn:os:version" is required`,
			`property "unikorn:virtualization" is required`,
		}},
		{name: "kernel missing", props: with(map[string]any{PropertyOSKernel: absent}), want: []string{`property "unikorn:os:kernel" is required`}},
		{name: "family missing", props: with(map[string]any{PropertyOSFamily: absent}), want: []string{`property "unikorn:os:family" is required`}},
		{name: "distro missing", props: with(map[string]any{PropertyOSDistro: absent}), want: []string{`property "unikorn:os:distro" is required`}},
		{name: "version missing", props: with(map[string]any{PropertyOSVersion: absent}), want: []string{`property "unikorn:os:version" is required`}},
		{name: "virtualization missing", props: with(map[string]any{PropertyVirtualization: absent}), want: []string{`property "unikorn:virtualization" is required`}},
		{name: "kernel not linux", props: with(map[string]any{PropertyOSKernel: "windows"}), want: []string{`property "unikorn:os:kernel" is "windows", must be one of linux`}},
		{name: "virtualization unknown", props: with(map[string]any{PropertyVirtualization: "VM"}), want: []string{`property "unikorn:virtualization" is "VM", must be one of any, baremetal, virtualized`}},
		{name: "version is a number", props: with(map[string]any{PropertyOSVersion: 24.04}), want: []string{`property "unikorn:os:version" must be a string, got a number`}},
		{name: "distro is null", props: with(map[string]any{PropertyOSDistro: nil}), want: []string{`property "unikorn:os:distro" must be a string, got null`}},
		{name: "variant is a boolean", props: with(map[string]any{PropertyOSVariant: true}), want: []string{`property "unikorn:os:variant" must be a string, got a boolean`}},
		{name: "kubernetes without v", props: with(map[string]any{"unikorn:package:kubernetes": "1.30.0"}), want: []string{`property "unikorn:package:kubernetes" is "1.30.0", must be a version vX.Y.Z`}},
		{name: "kubernetes minor only", props: with(map[string]any{"unikorn:package:kubernetes": "v1.30"}), want: []string{`property "unikorn:package:kubernetes" is "v1.30", must be a version vX.Y.Z`}},
		{name: "kubernetes pre-release", props: with(map[string]any{"unikorn:package:kubernetes": "v1.30.0-rc.1"}), want: []string{`property "unikorn:package:kubernetes" is "v1.30.0-rc.1", must be a version vX.Y.Z`}},
		{name: "slurmd bad", props: with(map[string]any{"unikorn:package:slurmd": "24.05"}), want: []string{`property "unikorn:package:slurmd" is "24.05", must be a version vX.Y.Z`}},
		{name: "package not a string", props: with(map[string]any{"unikorn:package:kubernetes": []any{"v1.30.0"}}), want: []string{`property "unikorn:package:kubernetes" must be a string, got an array`}},
		{name: "gpu vendor unknown", props: with(map[string]any{PropertyGPUVendor: "nvidia", PropertyGPUModels: "H100", PropertyGPUDriverVersion: "550"}), want: []string{`property "unikorn:gpu_vendor" is "nvidia", must be one of AMD, NVIDIA`}},
		{name: "gpu vendor alone", props: with(map[string]any{PropertyGPUVendor: "NVIDIA"}), want: []string{
			`property "unikorn:gpu_models" is required when "unikorn:gpu_vendor" is set`,
			`property "unikorn:gpu_driver_version" is required when "unikorn:gpu_vendor" is set`,
		}},
		{name: "gpu without driver", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X"}), want: []string{`property "unikorn:gpu_driver_version" is required when "unikorn:gpu_vendor" is set`}},
		{name: "gpu models not a list", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X,", PropertyGPUDriverVersion: "6.1"}), want: []string{`property "unikorn:gpu_models" is "MI300X,", must be GPU model names of letters, digits and underscores joined by commas, without spaces (e.g. H100,A100)`}},
		{name: "gpu models with a hyphen", props: with(map[string]any{PropertyGPUModels: "H100-SXM5"}), want: []string{`property "unikorn:gpu_models" is "H100-SXM5", must be GPU model names of letters, digits and underscores joined by commas, without spaces (e.g. H100,A100)`}},
		{name: "tag not a string", props: with(map[string]any{"unikorn:tag:n": 1.0}), want: []string{`property "unikorn:tag:n" must be a string, got a number`}},
		{name: "digest not a string", props: with(map[string]any{PropertyDigest: map[string]any{}}), want: []string{`property "unikorn:digest" must be a string, got an object`}},
		{name: "every problem reported, required first", props: with(map[string]any{
			PropertyOSKernel: absent, PropertyVirtualization: "vm", "unikorn:package:kubernetes": "latest", PropertyGPUVendor: "Intel",
		}), want: []string{
			`property "unikorn:os:kernel" is required`,
			`property "unikorn:virtualization" is "vm", must be one of any, baremetal, virtualized`,
			`property "unikorn:gpu_models" is required when "unikorn:gpu_vendor" is set`,
			`property "unikorn:gpu_driver_version" is required when "unikorn:gpu_vendor" is set`,
			`property "unikorn:gpu_vendor" is "Intel", must be one of AMD, NVIDIA`,
			`property "unikorn:package:kubernetes" is "latest", must be a version vX.Y.Z`,
		}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			err := Validate(tt.props)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}

				return
			}

			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}

			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tt.want)
			}

			var pe *PropertyError
			if !errors.As(err, &pe) || pe.Property == "" {
				t.Errorf("Validate error does not unwrap to a *PropertyError: %v", err)
			}
		})
	}
}

// FuzzValidate feeds arbitrary values to the property parser: Validate and
// Translate must never panic, and a property set that validates translates
// into an image with the required facts.
func FuzzValidate(f *testing.F) {
	f.Add("linux", "24.04", "any", "v1.30.0", "NVIDIA", "H100,A100", "550", "team", "ml")
	f.Add("", "", "", "", "", ",", "", "", "")
	f.Add("linux", "9", "baremetal", "1.30", "AMD", "MI300X,", "", "", "\x00")

	f.Fuzz(func(t *testing.T, kernel, version, virt, k8s, vendor, models, driver, tagKey, tagValue string) {
		props := map[string]any{
			PropertyOSKernel:                kernel,
			PropertyOSFamily:                "debian",
			PropertyOSDistro:                "ubuntu",
			PropertyOSVersion:               version,
			PropertyVirtualization:          virt,
			PropertyLegacyKubernetesVersion: k8s,
			PropertyTagPrefix + tagKey:      tagValue,
		}

		if vendor != "" {
			props[PropertyGPUVendor] = vendor
			props[PropertyGPUModels] = models
			props[PropertyGPUDriverVersion] = driver
		}

		err := Validate(maps.Clone(props))
		img := Translate(images.Image{ID: "id", Properties: props})

		if err != nil {
			return
		}

		if img.OS.Kernel != KernelLinux || img.Packages["kubernetes"] != k8s {
			t.Errorf("valid properties %v translated to %+v", props, img)
		}

		if vendor != "" && (img.GPU == nil || len(img.GPU.Models) == 0) {
			t.Errorf("valid GPU properties %v translated to GPU %+v", props, img.GPU)
		}
	})
}
