// Command otelcol-ngx is a minimal OpenTelemetry Collector (an OTLP receiver and the debug exporter), assembled by
// hand as the collector builder would, so the tests receive the app's traces in a real collector.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-ngx",
			Description: "OpenTelemetry Collector with the OTLP receiver and the debug exporter",
			Version:     "0.165.0",
		},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(),
					fileprovider.NewFactory(),
					yamlprovider.NewFactory(),
				},
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}

func factories() (otelcol.Factories, error) {
	otlp := otlpreceiver.NewFactory()
	debug := debugexporter.NewFactory()
	return otelcol.Factories{
		Receivers: map[component.Type]receiver.Factory{otlp.Type(): otlp},
		Exporters: map[component.Type]exporter.Factory{debug.Type(): debug},
		Telemetry: otelconftelemetry.NewFactory(),
	}, nil
}
