package image

import (
	"errors"
	"slices"
	"testing"
)

// schemaCase is one row of the table built from Unikorn's image property schema
// (v2.image.schema.json of uni-region, the same from v1.16.4 through v1.19.0): the properties
// of an image, whether Unikorn lists it (the schema accepts them), and why, citing the clause.
type schemaCase struct {
	why   string
	props map[string]any
	// refused are the properties the schema refuses (nil: it accepts them all).
	refused []string
}

// unikornSchemaCases are the rows. Every one was checked against Unikorn's own validator (the
// JSON schema library and version uni-region v1.19.0 uses, with the schema file of v1.19.0):
// it accepts exactly the rows with no refused property.
var unikornSchemaCases = []schemaCase{
	// "required": [kernel, family, distro, version, virtualization]: presence only.
	{why: "required: the five keys, nothing else", props: validProps()},
	{why: "required: kernel missing", props: with(map[string]any{PropertyOSKernel: absent}), refused: []string{PropertyOSKernel}},
	{why: "required: family missing", props: with(map[string]any{PropertyOSFamily: absent}), refused: []string{PropertyOSFamily}},
	{why: "required: distro missing", props: with(map[string]any{PropertyOSDistro: absent}), refused: []string{PropertyOSDistro}},
	{why: "required: version missing", props: with(map[string]any{PropertyOSVersion: absent}), refused: []string{PropertyOSVersion}},
	{why: "required: virtualization missing", props: with(map[string]any{PropertyVirtualization: absent}), refused: []string{PropertyVirtualization}},
	{why: "required, on no properties at all", props: nil, refused: []string{
		PropertyOSKernel, PropertyOSFamily, PropertyOSDistro, PropertyOSVersion, PropertyVirtualization,
	}},

	// family, distro, version, variant, codename: {"type":"string"}, no minLength, no enum
	// (the family/distro enums of v1.10–v1.15 were dropped in v1.16.4).
	{why: "os strings: empty family, distro and version are strings", props: with(map[string]any{
		PropertyOSFamily: "", PropertyOSDistro: "", PropertyOSVersion: "",
	})},
	{why: "os strings: white space is a string", props: with(map[string]any{PropertyOSFamily: " "})},
	{why: "os strings: no family/distro enum since v1.16.4", props: with(map[string]any{
		PropertyOSFamily: "arch", PropertyOSDistro: "debian",
	})},
	{why: "os strings: the v1.10–v1.15 enum values still pass", props: with(map[string]any{
		PropertyOSFamily: "redhat", PropertyOSDistro: "rocky", PropertyOSVersion: "9",
	})},
	{why: "os strings: empty variant and codename", props: with(map[string]any{PropertyOSVariant: "", PropertyOSCodename: ""})},
	{why: "os strings: a null version is no string", props: with(map[string]any{PropertyOSVersion: nil}), refused: []string{PropertyOSVersion}},
	{why: "os strings: a number is no string", props: with(map[string]any{PropertyOSDistro: 24.04}), refused: []string{PropertyOSDistro}},
	{why: "os strings: a boolean variant is no string", props: with(map[string]any{PropertyOSVariant: true}), refused: []string{PropertyOSVariant}},
	{why: "os strings: an array codename is no string", props: with(map[string]any{PropertyOSCodename: []any{"noble"}}), refused: []string{PropertyOSCodename}},

	// kernel: enum ["linux"], exact.
	{why: "kernel enum: Linux is not linux", props: with(map[string]any{PropertyOSKernel: "Linux"}), refused: []string{PropertyOSKernel}},
	{why: "kernel enum: empty", props: with(map[string]any{PropertyOSKernel: ""}), refused: []string{PropertyOSKernel}},
	{why: "kernel enum: windows", props: with(map[string]any{PropertyOSKernel: "windows"}), refused: []string{PropertyOSKernel}},

	// virtualization: enum ["any","baremetal","virtualized"].
	{why: "virtualization enum: any", props: with(map[string]any{PropertyVirtualization: "any"})},
	{why: "virtualization enum: baremetal", props: with(map[string]any{PropertyVirtualization: "baremetal"})},
	{why: "virtualization enum: empty", props: with(map[string]any{PropertyVirtualization: ""}), refused: []string{PropertyVirtualization}},
	{why: "virtualization enum: Virtualized", props: with(map[string]any{PropertyVirtualization: "Virtualized"}), refused: []string{PropertyVirtualization}},

	// unikorn:package:kubernetes and :slurmd: pattern ^v\d+\.\d+\.\d+$ (Go's RE2: \d is ASCII,
	// $ is the end of the text).
	{why: "package pattern: v1.31.0 and v24.05.1", props: with(map[string]any{"unikorn:package:kubernetes": "v1.31.0", "unikorn:package:slurmd": "v24.05.1"})},
	{why: "package pattern: leading zeros are digits", props: with(map[string]any{"unikorn:package:kubernetes": "v01.002.0"})},
	{why: "package pattern: no v", props: with(map[string]any{"unikorn:package:kubernetes": "1.30.0"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: capital V", props: with(map[string]any{"unikorn:package:kubernetes": "V1.30.0"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: two parts", props: with(map[string]any{"unikorn:package:kubernetes": "v1.30"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: a pre-release", props: with(map[string]any{"unikorn:package:kubernetes": "v1.30.0-rc.1"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: a trailing newline", props: with(map[string]any{"unikorn:package:kubernetes": "v1.30.0\n"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: \\d is ASCII", props: with(map[string]any{"unikorn:package:kubernetes": "v١.٣٠.٠"}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: empty", props: with(map[string]any{"unikorn:package:kubernetes": ""}), refused: []string{"unikorn:package:kubernetes"}},
	{why: "package pattern: slurmd without v", props: with(map[string]any{"unikorn:package:slurmd": "24.05.1"}), refused: []string{"unikorn:package:slurmd"}},
	{why: "package type: a number", props: with(map[string]any{"unikorn:package:slurmd": 24.0}), refused: []string{"unikorn:package:slurmd"}},

	// No additionalProperties: every other key, unikorn: or not, is unconstrained.
	{why: "additional: the legacy kubernetes_version without v", props: with(map[string]any{PropertyLegacyKubernetesVersion: "1.28"})},
	{why: "additional: the legacy kubernetes_version, any type", props: with(map[string]any{PropertyLegacyKubernetesVersion: 1.28})},
	{why: "additional: other packages, empty", props: with(map[string]any{"unikorn:package:cuda": ""})},
	{why: "additional: other packages, any version form", props: with(map[string]any{"unikorn:package:containerd": "1.7"})},
	{why: "additional: a package without a name", props: with(map[string]any{"unikorn:package:": ""})},
	{why: "additional: other packages, any type", props: with(map[string]any{"unikorn:package:cuda": 12.4})},
	{why: "additional: an empty organization", props: with(map[string]any{PropertyOrganizationID: ""})},
	{why: "additional: an organization of another type", props: with(map[string]any{PropertyOrganizationID: 42.0})},
	{why: "additional: unknown unikorn: keys", props: with(map[string]any{"unikorn:something_new": false, "unikorn:os:kernel_extra": nil})},
	{why: "additional: Glance's and others' keys", props: with(map[string]any{
		"architecture": "amd64", "hw_disk_bus": "scsi", "stores": []any{"file"}, "os_hash_value": nil, "properties": map[string]any{},
	})},

	// unikorn:gpu_vendor: enum ["AMD","NVIDIA"]; dependentRequired: vendor → models, driver.
	{why: "gpu: NVIDIA with one model and a driver", props: with(map[string]any{PropertyGPUVendor: "NVIDIA", PropertyGPUModels: "H100", PropertyGPUDriverVersion: "550.54.15"})},
	{why: "gpu: AMD with two models", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X,MI250", PropertyGPUDriverVersion: "6.1"})},
	{why: "gpu: the driver is any string, empty too", props: with(map[string]any{PropertyGPUVendor: "NVIDIA", PropertyGPUModels: "L40S", PropertyGPUDriverVersion: ""})},
	{why: "gpu: models without a vendor", props: with(map[string]any{PropertyGPUModels: "H100"})},
	{why: "gpu: a driver without a vendor", props: with(map[string]any{PropertyGPUDriverVersion: "550"})},
	{why: "gpu vendor enum: nvidia", props: with(map[string]any{PropertyGPUVendor: "nvidia", PropertyGPUModels: "H100", PropertyGPUDriverVersion: "550"}), refused: []string{PropertyGPUVendor}},
	{why: "gpu vendor enum: empty", props: with(map[string]any{PropertyGPUVendor: "", PropertyGPUModels: "H100", PropertyGPUDriverVersion: "550"}), refused: []string{PropertyGPUVendor}},
	{why: "dependentRequired: a vendor alone", props: with(map[string]any{PropertyGPUVendor: "NVIDIA"}), refused: []string{PropertyGPUModels, PropertyGPUDriverVersion}},
	{why: "dependentRequired: no driver", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X"}), refused: []string{PropertyGPUDriverVersion}},
	{why: "dependentRequired: no models", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUDriverVersion: "6.1"}), refused: []string{PropertyGPUModels}},
	{why: "dependentRequired is presence: a null driver is there, and no string", props: with(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X", PropertyGPUDriverVersion: nil}), refused: []string{PropertyGPUDriverVersion}},
	{why: "gpu driver type: a number", props: with(map[string]any{PropertyGPUDriverVersion: 550.0}), refused: []string{PropertyGPUDriverVersion}},

	// unikorn:gpu_models: pattern ^\w+(,\w+)*$ (\w is [0-9A-Za-z_]).
	{why: "gpu_models pattern: an underscore is a word character", props: with(map[string]any{PropertyGPUModels: "H100_SXM5,A100_80GB"})},
	{why: "gpu_models pattern: a hyphen is not", props: with(map[string]any{PropertyGPUModels: "H100-SXM5"}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models pattern: no space after the comma", props: with(map[string]any{PropertyGPUModels: "A100, H100"}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models pattern: no trailing comma", props: with(map[string]any{PropertyGPUModels: "H100,"}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models pattern: not empty", props: with(map[string]any{PropertyGPUModels: ""}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models pattern: \\w is ASCII", props: with(map[string]any{PropertyGPUModels: "Ä100"}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models pattern: checked without a vendor too", props: with(map[string]any{PropertyGPUModels: "H100 PCIe"}), refused: []string{PropertyGPUModels}},
	{why: "gpu_models type: a list is no string", props: with(map[string]any{PropertyGPUVendor: "NVIDIA", PropertyGPUModels: []any{"H100"}, PropertyGPUDriverVersion: "550"}), refused: []string{PropertyGPUModels}},

	// patternProperties "^unikorn:tag:": {"type":"string"}.
	{why: "tags: any string, empty too", props: with(map[string]any{"unikorn:tag:team": "ml", "unikorn:tag:tier": ""})},
	{why: "tags: a tag without a name is a string", props: with(map[string]any{"unikorn:tag:": "x"})},
	{why: "tags: Unikorn's own provenance tags", props: with(map[string]any{
		"unikorn:tag:images.unikorn-cloud.org:source": "import", "unikorn:tag:images.unikorn-cloud.org:organization-id": "o1",
	})},
	{why: "tags type: a number", props: with(map[string]any{"unikorn:tag:n": 1.0}), refused: []string{"unikorn:tag:n"}},
	{why: "tags type: a null tag without a name", props: with(map[string]any{"unikorn:tag:": nil}), refused: []string{"unikorn:tag:"}},

	// unikorn:digest: {"type":"string"}.
	{why: "digest: any string, empty too", props: with(map[string]any{PropertyDigest: ""})},
	{why: "digest type: an object", props: with(map[string]any{PropertyDigest: map[string]any{}}), refused: []string{PropertyDigest}},

	// Everything at once: each clause reports its own properties.
	{why: "every clause at once", props: with(map[string]any{
		PropertyOSKernel: absent, PropertyVirtualization: "vm", "unikorn:package:kubernetes": "latest", PropertyGPUVendor: "Intel",
		PropertyGPUModels: "A100, H100", "unikorn:tag:x": 1.0,
	}), refused: []string{
		PropertyOSKernel, PropertyVirtualization, PropertyGPUDriverVersion, PropertyGPUModels, PropertyGPUVendor,
		"unikorn:package:kubernetes", "unikorn:tag:x",
	}},
}

// TestValidateFollowsUnikornSchema: Validate accepts exactly what Unikorn's schema accepts and
// names exactly the properties it refuses.
func TestValidateFollowsUnikornSchema(t *testing.T) {
	t.Parallel()

	for _, tt := range unikornSchemaCases {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()

			err := Validate(tt.props)

			var got []string

			for _, e := range unjoin(err) {
				var pe *PropertyError
				if !errors.As(e, &pe) {
					t.Fatalf("Validate: %T %v is not a *PropertyError", e, e)
				}

				if !slices.Contains(got, pe.Property) {
					got = append(got, pe.Property)
				}
			}

			slices.Sort(got)

			want := slices.Clone(tt.refused)
			slices.Sort(want)

			if !slices.Equal(got, want) {
				t.Errorf("Validate refuses %q, Unikorn's schema refuses %q (%v)", got, want, err)
			}
		})
	}
}

// unjoin is the errors of an errors.Join (nil: none).
func unjoin(err error) []error {
	if err == nil {
		return nil
	}

	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}

	return []error{err}
}
