package features

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// auth holds the tokens of a scenario whose herd requires them.
type auth struct {
	// admin is the token the world's own reads carry: an admin's.
	admin string
	// actor is the token of whoever makes the scenario's requests.
	actor string
	// users maps user names to their tokens.
	users map[string]string
	// ca is the certificate herd serves TLS with, when it does.
	ca string
}

func (w *world) registerAuthSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd requires bearer tokens from a token file:$`, w.requireTokens)
	sc.Step(`^the token file is changed to:$`, w.changeTokenFile)
	sc.Step(`^herd accepts the token "([^"]+)"$`, w.tokenAccepted)
	sc.Step(`^herd refuses the token "([^"]+)"$`, w.tokenRefused)
	sc.Step(`^the requests come from "([^"]+)"$`, w.requestsFrom)
	sc.Step(`^the requests carry (no token|the token "[^"]*")$`, w.requestsCarry)
	sc.Step(`^herd listens for devices named "([^"]+)" from (.+)$`, w.listenForDevices)
	sc.Step(`^"([^"]+)" is bound to (\S+)$`, w.boundTo)
	sc.Step(`^"([^"]+)" is bound to no address$`, w.boundToNothing)
	sc.Step(`^an admin releases the device "([^"]+)"$`, w.adminReleases)
	sc.Step(`^the request succeeds with (\d+)$`, w.succeedsWith)
}

// requireTokens writes the table as a token file in kube-apiserver's
// format and restarts herd with it. The world's own reads use the first
// admin's token, and so do the scenario's requests until a step says
// otherwise.
func (w *world) requireTokens(t *godog.Table) error {
	path, err := w.writeTokenFile(t)
	if err != nil {
		return err
	}
	w.auth.actor = w.auth.admin
	// Tokens travel over TLS, as they do to kube-apiserver: kubectl sends
	// none over plain HTTP.
	cert, key, err := selfSigned(w.dir)
	if err != nil {
		return err
	}
	if err := w.trust(cert); err != nil {
		return err
	}
	w.auth.ca = cert
	w.cfg.Security.TokenAuthFile = path
	w.cfg.Security.TLSCertFile, w.cfg.Security.TLSPrivateKeyFile = cert, key
	return w.restart(context.Background())
}

// writeTokenFile writes the table as the scenario's token file and
// takes its tokens as the world's.
func (w *world) writeTokenFile(t *godog.Table) (string, error) {
	rows, err := tableRows(t, "token", "user", "uid", "groups")
	if err != nil {
		return "", err
	}
	path := filepath.Join(w.dir, "tokens.csv")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	cw := csv.NewWriter(f)
	w.auth.users = map[string]string{}
	w.auth.admin = ""
	for _, r := range rows {
		if err := cw.Write([]string{r["token"], r["user"], r["uid"], r["groups"]}); err != nil {
			return "", errors.Join(err, f.Close())
		}
		w.auth.users[r["user"]] = r["token"]
		if w.auth.admin == "" && slices.Contains(strings.Split(r["groups"], ","), "herd:admins") {
			w.auth.admin = r["token"]
		}
	}
	cw.Flush()
	if err := errors.Join(cw.Error(), f.Close()); err != nil {
		return "", err
	}
	if w.auth.admin == "" {
		return "", fmt.Errorf("the token file needs an admin (group herd:admins), for the scenario's own reads")
	}
	return path, nil
}

// changeTokenFile rewrites the running herd's token file; herd reads it
// again when its check comes round on herd's clock.
func (w *world) changeTokenFile(t *godog.Table) error {
	if w.cfg.Security.TokenAuthFile == "" {
		return errors.New("herd runs without a token file: a step must require tokens first")
	}
	_, err := w.writeTokenFile(t)
	return err
}

// tokenAccepted waits, on the wall clock, for herd to take token: herd
// reads a changed file on its own goroutine once its clock has moved.
func (w *world) tokenAccepted(token string) error {
	return eventually("herd accepts the token "+token, func() error {
		r, err := w.doAs(token, http.MethodGet, "/api/v1/namespaces/default/configmaps", "", nil)
		if err != nil {
			return err
		}
		if r.code != http.StatusOK {
			return fmt.Errorf("want 200, got %s", r)
		}
		return nil
	})
}

// tokenRefused checks that herd answers token with 401 now.
func (w *world) tokenRefused(token string) error {
	r, err := w.doAs(token, http.MethodGet, "/api/v1/namespaces/default/configmaps", "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusUnauthorized {
		return fmt.Errorf("want 401 Unauthorized, got %s", r)
	}
	return nil
}

func (w *world) requestsFrom(user string) error {
	tok, ok := w.auth.users[user]
	if !ok {
		return fmt.Errorf("no token of %q in the token file", user)
	}
	w.auth.actor = tok
	return nil
}

func (w *world) requestsCarry(what string) error {
	w.auth.actor = ""
	if tok, ok := strings.CutPrefix(what, "the token "); ok {
		w.auth.actor = strings.Trim(tok, `"`)
	}
	return nil
}

// listenForDevices restarts herd with its device listener on 127.0.0.2,
// for the name patterns and source networks given. The port stays the
// same across later restarts, as an operator's configuration would.
func (w *world) listenForDevices(patterns, networks string) error {
	if w.devices.listen == "" {
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			return err
		}
		w.devices.listen = ln.Addr().String()
		if err := ln.Close(); err != nil {
			return err
		}
	}
	w.cfg.Security.DeviceListen = w.devices.listen
	w.cfg.Security.DeviceAllow = splitList(patterns)
	w.cfg.Security.DeviceSourceNetworks = splitList(networks)
	return w.restart(context.Background())
}

// deviceBinding is a binding as herd's API shows it.
type deviceBinding struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

func (w *world) boundTo(name, addr string) error {
	var b deviceBinding
	if err := w.get(herdPath+"/devicebindings/"+name, &b); err != nil {
		return err
	}
	if b.Address != addr {
		return fmt.Errorf("%s is bound to %q, want %s", name, b.Address, addr)
	}
	return nil
}

func (w *world) boundToNothing(name string) error {
	r, err := w.do(http.MethodGet, herdPath+"/devicebindings/"+name, "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("want 404 NotFound, got %s", r)
	}
	return nil
}

func (w *world) adminReleases(name string) error {
	actor := w.auth.actor
	w.auth.actor = w.auth.admin
	defer func() { w.auth.actor = actor }()
	return w.mustWrite(http.MethodDelete, herdPath+"/devicebindings/"+name, "", nil)
}

func (w *world) succeedsWith(code int) error {
	if w.last.code != code {
		return fmt.Errorf("want %d, got %s", code, w.last)
	}
	return nil
}
