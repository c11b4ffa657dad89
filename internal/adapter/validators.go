package adapter

import (
	"context"
	"fmt"
	"net"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// StringCheck is the one constructor of the kit's string validators: what names the kind of
// value ("name", "IP address"), which makes the summary ("Invalid IP address"); description
// says what is accepted; check returns why a known value is not. Null and unknown values are
// left to Required and to the apply.
func StringCheck(what, description string, check func(string) error) validator.String {
	return stringCheck{described: described(description), what: what, check: check}
}

type stringCheck struct {
	described

	what  string
	check func(string) error
}

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+v.what, err.Error())
	}
}

// ObjectCheck, ListCheck and SetCheck are the constructors of the kit's validators of a whole
// object, list or set: description says the rule; check reports, as attribute errors at the
// value's path p or below it, what in a known value breaks it (the object's attributes, the
// list's or set's elements). Null and unknown values are left to Required and to the apply.
func ObjectCheck(description string, check func(attrs map[string]attr.Value, p path.Path, diags *diag.Diagnostics)) validator.Object {
	return objectCheck{described(description), check}
}

// ListCheck is ObjectCheck's constructor for a list.
func ListCheck(description string, check func(elems []attr.Value, p path.Path, diags *diag.Diagnostics)) validator.List {
	return collectionCheck{described(description), check}
}

// SetCheck is ObjectCheck's constructor for a set.
func SetCheck(description string, check func(elems []attr.Value, p path.Path, diags *diag.Diagnostics)) validator.Set {
	return collectionCheck{described(description), check}
}

// Unjoin is the errors that err joins (errors.Join), err alone when it joins none, nothing for
// nil: a core's check that finds several problems is reported one attribute error each.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}

	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}

	return []error{err}
}

// described is a validator's description, in plain text and Markdown alike.
type described string

func (d described) Description(context.Context) string { return string(d) }

func (d described) MarkdownDescription(context.Context) string { return string(d) }

type objectCheck struct {
	described

	check func(map[string]attr.Value, path.Path, *diag.Diagnostics)
}

func (v objectCheck) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		v.check(req.ConfigValue.Attributes(), req.Path, &resp.Diagnostics)
	}
}

type collectionCheck struct {
	described

	check func([]attr.Value, path.Path, *diag.Diagnostics)
}

func (v collectionCheck) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		v.check(req.ConfigValue.Elements(), req.Path, &resp.Diagnostics)
	}
}

func (v collectionCheck) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		v.check(req.ConfigValue.Elements(), req.Path, &resp.Diagnostics)
	}
}

// Name checks a user-given name of kind with naming.ValidateName.
func Name(kind string) validator.String {
	return StringCheck("name",
		fmt.Sprintf("a name (of the %s) of 1 to %d characters, without control characters or surrounding white space",
			kind, naming.MaxNameLength(kind)),
		func(s string) error { return naming.ValidateName(kind, s) })
}

// Family is the IP family an address or prefix validator accepts.
type Family int

const (
	// AnyFamily accepts IPv4 and IPv6.
	AnyFamily Family = iota
	// IPv4 accepts IPv4 only.
	IPv4
	// IPv6 accepts IPv6 only.
	IPv6
)

func (f Family) accepts(a netip.Addr) bool {
	switch f {
	case IPv4:
		return a.Is4()
	case IPv6:
		return a.Is6() && !a.Is4In6()
	}

	return true
}

func (f Family) String() string {
	return [...]string{"IPv4 or IPv6", "IPv4", "IPv6"}[f]
}

func (f Family) exampleAddress() string {
	return [...]string{"192.0.2.10 or 2001:db8::10", "192.0.2.10", "2001:db8::10"}[f]
}

func (f Family) examplePrefix() string {
	return [...]string{"192.0.2.0/24 or 2001:db8::/32", "192.0.2.0/24", "2001:db8::/32"}[f]
}

// CheckAddress checks that s is an IP address of family f in canonical form (as OpenStack
// stores it, so that it reads back the same).
func CheckAddress(s string, f Family) error {
	a, err := netip.ParseAddr(s)

	switch {
	case err != nil || a.Zone() != "":
		return fmt.Errorf("%q is not an IP address such as %s", s, f.exampleAddress())
	case !f.accepts(a):
		return fmt.Errorf("%q is not an %s address", s, f)
	case a.String() != s:
		return fmt.Errorf("%q is not in canonical form: write %s", s, a)
	}

	return nil
}

// CheckPrefix checks that s is an IP prefix of family f in canonical form (no host bits, as
// OpenStack stores it).
func CheckPrefix(s string, f Family) error {
	p, err := netip.ParsePrefix(s)

	switch {
	case err != nil:
		return fmt.Errorf("%q is not a CIDR prefix such as %s", s, f.examplePrefix())
	case !f.accepts(p.Addr()):
		return fmt.Errorf("%q is not an %s prefix", s, f)
	case p.Masked().String() != s:
		return fmt.Errorf("%q is not in canonical form: write %s", s, p.Masked())
	}

	return nil
}

// IPAddress checks an IP address of family f in canonical form.
func IPAddress(f Family) validator.String {
	return StringCheck("IP address", fmt.Sprintf("an %s address in canonical form, e.g. %s", f, f.exampleAddress()),
		func(s string) error { return CheckAddress(s, f) })
}

// Prefix checks an IP prefix of family f in canonical form.
func Prefix(f Family) validator.String {
	return StringCheck("CIDR", fmt.Sprintf("an %s prefix in canonical form, e.g. %s", f, f.examplePrefix()),
		func(s string) error { return CheckPrefix(s, f) })
}

// AddressOrPrefix checks an IP address or prefix of any family (allowed address pairs).
func AddressOrPrefix() validator.String {
	return StringCheck("IP address", "an IPv4 or IPv6 address, or a CIDR prefix", func(s string) error {
		if _, err := netip.ParseAddr(s); err == nil {
			return nil
		}

		if _, err := netip.ParsePrefix(s); err == nil {
			return nil
		}

		return fmt.Errorf("%q is neither an IP address nor a CIDR prefix", s)
	})
}

// UUID checks an OpenStack object ID.
func UUID() validator.String {
	return StringCheck("ID", "an OpenStack ID (a UUID such as 0b7a4c5e-6a07-4b73-9c8a-2f0c5b1a9d3e)", func(s string) error {
		if !cloud.LooksLikeID(s) {
			return fmt.Errorf("%q is not an OpenStack ID (a UUID)", s)
		}

		return nil
	})
}

// MAC checks a 48-bit MAC address.
func MAC() validator.String {
	return StringCheck("MAC address", "a MAC address such as fa:16:3e:00:00:01", func(s string) error {
		if hw, err := net.ParseMAC(s); err != nil || len(hw) != 6 {
			return fmt.Errorf("%q is not a MAC address such as fa:16:3e:00:00:01", s)
		}

		return nil
	})
}
