import { useCallback, useState } from 'react';
import { SecretDialog } from '../../app/components';

/** Secrets shown once in a dialog (a new merchant's, an agent's token, a console key, test credentials). */
export type Secrets = { title: string; secrets: { label: string; value: string }[] } | null;

export function useSecrets() {
  const [secrets, setSecrets] = useState<Secrets>(null);
  const close = useCallback(() => setSecrets(null), []);
  const dialog = secrets ? <SecretDialog title={secrets.title} secrets={secrets.secrets} onClose={close} /> : null;
  return { show: setSecrets, dialog };
}
