package server

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestConsoleOutput(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	api.Reply("POST", "/compute/servers/srv-1/action", 200, map[string]any{"output": "LAST LINE\n"})

	out, err := service(api).ConsoleOutput(context.Background(), "srv-1", 1)
	if err != nil || out != "LAST LINE\n" {
		t.Fatalf("ConsoleOutput = %q, %v", out, err)
	}

	body := api.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "os-getConsoleOutput")
	if diff := cmp.Diff(map[string]any{"length": float64(1)}, body); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestOpenConsole(t *testing.T) {
	t.Parallel()

	t.Run("novnc", func(t *testing.T) {
		t.Parallel()

		api := cloudtest.New(t)
		api.Reply("POST", "/compute/servers/srv-1/remote-consoles", 200, map[string]any{"remote_console": map[string]any{
			"protocol": "vnc", "type": "novnc", "url": "http://127.0.0.1:6080/vnc_auto.html?path=%3Ftoken%3Dsecret",
		}})

		c, err := service(api).OpenConsole(context.Background(), "srv-1", DefaultConsoleType)
		if err != nil || c.Protocol != "vnc" || !strings.Contains(c.URL, "token") {
			t.Fatalf("OpenConsole = %+v, %v", c, err)
		}

		body := api.Last(t, "POST /compute/servers/srv-1/remote-consoles").JSON(t, "remote_console")
		if diff := cmp.Diff(map[string]any{"protocol": "vnc", "type": "novnc"}, body); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	})

	t.Run("a type the cloud does not offer", func(t *testing.T) {
		t.Parallel()

		api := cloudtest.New(t)
		api.Reply("POST", "/compute/servers/srv-1/remote-consoles", 400, map[string]any{"badRequest": map[string]any{
			"message": "Unavailable console type spice-html5.", "code": 400,
		}})

		_, err := service(api).OpenConsole(context.Background(), "srv-1", "spice-html5")
		if err == nil || !strings.Contains(err.Error(), "may not enable spice consoles") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("another identity's server", func(t *testing.T) {
		t.Parallel()

		api := cloudtest.New(t)

		_, err := service(api).OpenConsole(context.Background(), "srv-1", "serial")
		if err == nil || !strings.Contains(err.Error(), "no such server in project p1, region RegionOne") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestReboot(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	serverReads(api,
		map[string]any{"server": novaServer("srv-1", "web", statusActive, map[string]any{"OS-EXT-STS:task_state": "image_uploading"})},
		map[string]any{"server": novaServer("srv-1", "web", statusActive, nil)},
		map[string]any{"server": novaServer("srv-1", "web", statusHardReboot, map[string]any{"OS-EXT-STS:task_state": "reboot_started_hard"})},
		map[string]any{"server": novaServer("srv-1", "web", statusActive, nil)})
	api.Reply("POST", "/compute/servers/srv-1/action", 202, nil)

	var told []string

	if err := service(api).Reboot(context.Background(), "srv-1", true, func(m string) { told = append(told, m) }); err != nil {
		t.Fatal(err)
	}

	if body := api.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "reboot"); body["type"] != "HARD" {
		t.Errorf("reboot body = %v", body)
	}

	// The reboot is asked for only once the server is idle (its snapshot upload done).
	want := []string{
		"GET /compute/servers/srv-1", "GET /compute/servers/srv-1", "POST /compute/servers/srv-1/action",
		"GET /compute/servers/srv-1", "GET /compute/servers/srv-1",
	}
	if diff := cmp.Diff(want, api.Calls()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	if len(told) != 3 || !strings.Contains(told[1], "(hard)") || !strings.Contains(told[2], "is ACTIVE again") {
		t.Errorf("progress = %q", told)
	}
}
