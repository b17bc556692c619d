// Command probe makes one GET per argument ("name=url") with net/http and prints each failure as Go MCP servers turn
// it into a tool error (err.Error()); one JSON object on stdout: {"go/<name>": text}. argv: timeout_ms name=url ...
// The timeout is the client's own (http.Client.Timeout). net/http does not fail on a status: a status >= 400 becomes
// fmt.Errorf("unexpected status: %s", resp.Status), the usual wrapper ("404 Not Found").
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func get(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("unexpected status: %s", resp.Status)
	}
	_, err = io.ReadAll(resp.Body)
	return err
}

func main() {
	ms, _ := strconv.Atoi(os.Args[1])
	client := &http.Client{Timeout: time.Duration(ms) * time.Millisecond}
	out := map[string]*string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, pair := range os.Args[2:] {
		name, url, _ := strings.Cut(pair, "=")
		wg.Add(1)
		go func() {
			defer wg.Done()
			var text *string
			if err := get(client, url); err != nil {
				s := err.Error()
				text = &s
			}
			mu.Lock()
			out["go/"+name] = text
			mu.Unlock()
		}()
	}
	wg.Wait()
	json.NewEncoder(os.Stdout).Encode(out)
}
