// Package cloud is the provider's OpenStack connection: it reads the service user's
// credentials (clouds.yaml and explicit settings), authenticates once, checks every served
// region against the Keystone catalog, and hands out the three credential scopes of the
// design (Manager, Privileged, Identity) as Sessions whose tokens and service clients are
// cached for the whole run; the password tokens of the base, manager and privileged scopes are
// also shelved for the process's other configurations (tokenShelf: the acceptance tests serve
// many commands from one process), never a trust's. Every HTTP request goes through one transport that retries
// idempotent requests on 429/502/503/504, logs each attempt in the "openstack" tflog
// subsystem and counts requests. The package holds no Terraform framework types.
package cloud
