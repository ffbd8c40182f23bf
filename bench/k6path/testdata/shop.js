// A k6 user's own script: checks, a group, a custom Trend, a JSON POST
// with headers, two requests per iteration and a sleep.
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { Trend } from 'k6/metrics';

const orderTime = new Trend('order_time', true);
const BASE = 'http://shop.example.com';

export const options = {
  vus: __ENV.VUS ? parseInt(__ENV.VUS) : 100,
  duration: __ENV.DURATION || '10s',
  thresholds: {
    checks: ['rate==1'],
    order_time: ['p(95)<5000'],
  },
};

export default function () {
  group('browse and order', () => {
    const list = http.get(`${BASE}/products?work=20ms`);
    check(list, {
      'products: no server error': (r) => r.status > 0 && r.status < 500,
    });
    const order = http.post(`${BASE}/orders`, JSON.stringify({ sku: 'A-1', qty: 2 }), {
      headers: { 'Content-Type': 'application/json', 'X-Client': 'shop-test' },
    });
    check(order, {
      'order: no server error': (r) => r.status > 0 && r.status < 500,
      'order: within 2 s': (r) => r.timings.duration < 2000,
    });
    orderTime.add(order.timings.duration);
  });
  sleep(0.5);
}
