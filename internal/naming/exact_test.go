package naming

import (
	"errors"
	"slices"
	"testing"
)

type object struct {
	ID   string
	Name string
}

func objectName(o object) string { return o.Name }
func objectID(o object) string   { return o.ID }

func TestExact(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		items []object
		want  string
		ids   []string
	}{
		{
			name:  "unanchored regex result",
			items: []object{{"1", "lb-a"}, {"2", "lb-ab"}, {"3", "xlb-a"}},
			want:  "lb-a",
			ids:   []string{"1"},
		},
		{
			name:  "case differs",
			items: []object{{"1", "LB-A"}, {"2", "Lb-a"}},
			want:  "lb-a",
		},
		{
			name:  "white space differs",
			items: []object{{"1", "lb-a "}, {"2", " lb-a"}, {"3", "lb-a\n"}, {"4", "lb-a"}},
			want:  "lb-a",
			ids:   []string{"4"},
		},
		{
			name:  "several exact matches keep their order",
			items: []object{{"9", "lb-a"}, {"2", "lb-ab"}, {"1", "lb-a"}},
			want:  "lb-a",
			ids:   []string{"9", "1"},
		},
		{
			name: "empty input",
			want: "lb-a",
		},
		{
			name:  "regex metacharacters are literal",
			items: []object{{"1", "lb-a.b"}, {"2", "lb-axb"}},
			want:  "lb-a.b",
			ids:   []string{"1"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var got []string
			for _, o := range Exact(tt.items, tt.want, objectName) {
				got = append(got, o.ID)
			}

			if !slices.Equal(got, tt.ids) {
				t.Errorf("Exact(%q) = %q, want %q", tt.want, got, tt.ids)
			}
		})
	}
}

func TestOne(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		kind    string
		want    string
		items   []object
		id      string
		found   bool
		dupIDs  []string
		message string
		isError bool
	}{
		{
			name:  "fuzzy result, one exact",
			kind:  "load balancer",
			want:  "lb-a",
			items: []object{{"1", "lb-ab"}, {"2", "lb-a"}, {"3", "LB-A"}, {"4", "lb-a "}},
			id:    "2",
			found: true,
		},
		{
			name:  "zero matches",
			kind:  "load balancer",
			want:  "lb-a",
			items: []object{{"1", "lb-ab"}, {"3", "LB-A"}},
		},
		{
			name: "nil input",
			kind: "network",
			want: "network-a",
		},
		{
			name:    "two exact matches",
			kind:    "security group",
			want:    "securitygroup-x",
			items:   []object{{"b-id", "securitygroup-x"}, {"c-id", "securitygroup-xy"}, {"a-id", "securitygroup-x"}},
			dupIDs:  []string{"a-id", "b-id"},
			message: `consistency error: 2 security groups named "securitygroup-x": a-id, b-id`,
			isError: true,
		},
		{
			name:    "three exact matches",
			kind:    "server group policy",
			want:    "p",
			items:   []object{{"3", "p"}, {"1", "p"}, {"2", "p"}},
			dupIDs:  []string{"1", "2", "3"},
			message: `consistency error: 3 server group policies named "p": 1, 2, 3`,
			isError: true,
		},
		{
			name:    "empty name",
			kind:    "network",
			want:    "",
			items:   []object{{"1", ""}},
			isError: true,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, found, err := One(tt.kind, tt.want, tt.items, objectName, objectID)

			if (err != nil) != tt.isError {
				t.Fatalf("One() error = %v, want error %v", err, tt.isError)
			}

			if found != tt.found || got.ID != tt.id {
				t.Errorf("One() = %+v, %v, want ID %q, %v", got, found, tt.id, tt.found)
			}

			if tt.dupIDs != nil {
				var dup *DuplicateError
				if !errors.As(err, &dup) {
					t.Fatalf("One() error %T is not a *DuplicateError", err)
				}

				if dup.Kind != tt.kind || dup.Name != tt.want || !slices.Equal(dup.IDs, tt.dupIDs) {
					t.Errorf("DuplicateError = %+v, want kind %q name %q IDs %q", dup, tt.kind, tt.want, tt.dupIDs)
				}
			}

			if tt.message != "" && err.Error() != tt.message {
				t.Errorf("message = %q, want %q", err.Error(), tt.message)
			}
		})
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()

	for kind, want := range map[string]string{
		"security group":         "security groups",
		"load balancer":          "load balancers",
		"policy":                 "policies",
		"key":                    "keys",
		"address":                "addresses",
		"application credential": "application credentials",
		"":                       "objects",
	} {
		if got := plural(kind); got != want {
			t.Errorf("plural(%q) = %q, want %q", kind, got, want)
		}
	}
}
