// Command probe is what the node tests run inside pods to see what the pod's network lets through.
//
//	probe idle                       wait for SIGTERM (a container that only hosts probes)
//	probe tcp HOST PORT [TIMEOUT_MS]  connect; prints "open", "refused", "timeout" or "error: …"
//	probe udp-dns NAME               resolve NAME with the pod's resolv.conf; prints the addresses or "error: …"
//	probe http URL [NAME=VALUE…]     GET URL (plain HTTP) with headers; a VALUE of $VAR is that environment
//	                                 variable (a token stays in the container); prints the status and body or "error: …"
//	probe serve PORT                 answer every TCP connection on PORT with "probe\n" (a listener to reach)
//
// It always exits 0 when it ran the probe (the result is what it prints), 2 on bad arguments.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "idle":
		idle()
	case "tcp":
		if len(os.Args) < 4 {
			usage()
		}
		timeout := 2 * time.Second
		if len(os.Args) > 4 {
			ms, err := strconv.Atoi(os.Args[4])
			if err != nil {
				usage()
			}
			timeout = time.Duration(ms) * time.Millisecond
		}
		fmt.Println(tcp(os.Args[2], os.Args[3], timeout))
	case "udp-dns":
		if len(os.Args) < 3 {
			usage()
		}
		fmt.Println(resolve(os.Args[2]))
	case "http":
		if len(os.Args) < 3 {
			usage()
		}
		fmt.Println(get(os.Args[2], os.Args[3:]))
	case "serve":
		if len(os.Args) < 3 {
			usage()
		}
		serve(os.Args[2])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: probe idle | tcp HOST PORT [TIMEOUT_MS] | udp-dns NAME | http URL | serve PORT")
	os.Exit(2)
}

func idle() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	<-signals
}

func tcp(host, port string, timeout time.Duration) string {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), timeout)
	if err == nil {
		conn.Close()
		return "open"
	}
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	default:
		return "error: " + err.Error()
	}
}

func resolve(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	addresses, err := net.DefaultResolver.LookupHost(ctx, name)
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.Join(addresses, " ")
}

func get(url string, headers []string) string {
	request, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	for _, header := range headers {
		name, value, ok := strings.Cut(header, "=")
		if !ok {
			return "error: a header is NAME=VALUE: " + header
		}
		if strings.HasPrefix(value, "$") {
			value = os.Getenv(value[1:])
		}
		request.Header.Set(name, value)
	}
	client := http.Client{Timeout: 5 * time.Second}
	response, err := client.Do(request)
	if err != nil {
		return "error: " + err.Error()
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(response.Body, 4096))
	return response.Status + " " + strings.TrimSpace(string(body))
}

func serve(port string) {
	listener, err := net.Listen("tcp", ":"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		conn, err := listener.Accept()
		if err != nil {
			continue
		}
		go func() {
			defer conn.Close()
			conn.Write([]byte("probe\n"))
		}()
	}
}
