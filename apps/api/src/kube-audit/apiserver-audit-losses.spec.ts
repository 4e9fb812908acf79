import { describe, expect, it } from 'vitest';
import { AuditLossCounter, webhookAuditLosses } from './apiserver-audit-losses.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, second));

describe("kube-apiserver's audit losses", () => {
  it('adds up the webhook and its buffer, and nothing else', () => {
    const text = [
      '# HELP apiserver_audit_error_total [ALPHA] Counter of audit events that failed to be audited properly.',
      '# TYPE apiserver_audit_error_total counter',
      'apiserver_audit_error_total{plugin="buffered"} 3',
      'apiserver_audit_error_total{plugin="log"} 100',
      'apiserver_audit_error_total{plugin="webhook"} 40',
      'apiserver_audit_event_total 9000',
    ].join('\n');
    expect(webhookAuditLosses(text)).toBe(43);
    expect(webhookAuditLosses('apiserver_audit_event_total 5\n')).toBe(0);
  });

  it('starts counting at its first reading, places each loss between two readings, and survives a restart', () => {
    const counter = new AuditLossCounter();
    expect(counter.observe(500, at(0))).toBeUndefined();
    expect(counter.observe(500, at(15))).toBeUndefined();
    expect(counter.observe(520, at(30))).toMatchObject({
      what: 'audit-events-lost',
      from: at(15),
      until: at(30),
      count: 20,
    });
    // kube-apiserver restarted: its counter began again at 0.
    expect(counter.observe(7, at(45))).toMatchObject({ from: at(30), until: at(45), count: 7 });
    expect(counter.observe(7, at(60))).toBeUndefined();
  });
});
