// A short-lived Kafka admin client, for the rare topic and group administration (start-up, a miss, a replay).
import type { Admin, Kafka } from 'kafkajs';

/** Runs `work` on a short-lived admin client of `kafka`, disconnected whatever happens. */
export async function withKafkaAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}
