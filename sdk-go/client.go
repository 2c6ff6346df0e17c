package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Client talks to a Sluice server's HTTP API.
type Client struct {
	// BaseURL is the server's address, e.g. http://127.0.0.1:7777.
	BaseURL string
	// Token is sent as "Authorization: Bearer <token>" when set.
	Token string
	// HTTP is the client used; its Timeout must be zero or longer than claim long-polls.
	HTTP *http.Client

	// direct, when set, posts over connections the calling goroutine reads itself
	// (see directPool); ClientFromEnv sets it for plain-HTTP servers.
	direct *directPool
}

// ClientFromEnv returns a client for SLUICE_URL and SLUICE_TOKEN, or ErrUnavailable.
func ClientFromEnv() (*Client, error) {
	url := strings.TrimRight(os.Getenv("SLUICE_URL"), "/")
	if url == "" {
		return nil, ErrUnavailable
	}
	return &Client{BaseURL: url, Token: os.Getenv("SLUICE_TOKEN"), HTTP: &http.Client{Transport: pooledTransport()}, direct: newDirectPool(url)}, nil
}

// pooledTransport keeps enough idle connections for a worker's concurrent claims (the
// default keeps 2 per host, so 500 concurrent runs would open a connection per write).
func pooledTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 1024
	return t
}

// post sends body as JSON to path and decodes the answer into out (when not nil).
// A non-2xx answer is an *APIError.
func (c *Client) post(ctx context.Context, path string, body any, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("sluice: encoding the request to %s: %w", path, err)
	}
	if c.direct != nil {
		status, raw, err := c.direct.post(ctx, path, c.Token, data)
		if err != nil {
			return err
		}
		return decodeAnswer(path, status, raw, out)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	return decodeAnswer(path, res.StatusCode, raw, out)
}

// decodeAnswer turns an answer into out (when not nil), or a non-2xx one into an *APIError.
func decodeAnswer(path string, status int, raw []byte, out any) error {
	if status < 200 || status > 299 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error.Code == "" {
			return &APIError{Status: status, Code: "HTTP_ERROR", Message: strings.TrimSpace(string(raw))}
		}
		return &APIError{Status: status, Code: e.Error.Code, Message: e.Error.Message}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("sluice: unreadable answer from %s: %w", path, err)
	}
	return nil
}
