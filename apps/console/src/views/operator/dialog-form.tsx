import type { ReactNode } from 'react';
import { Dialog, Form } from '../../app/components';

/** A modal dialog holding one form, titled and labelled alike. */
export function DialogForm({ title, onClose, onSubmit, children }: { title: string; onClose: () => void; onSubmit: () => void; children: ReactNode }) {
  return (
    <Dialog title={title} onClose={onClose}>
      <Form label={title} onSubmit={onSubmit}>
        {children}
      </Form>
    </Dialog>
  );
}
