/** What a refusal says beyond its message, shaped as a kube `Status`'s `details`. */
export interface RefusalDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
}

/**
 * A request to an Nginx that its state or its input rules out, decided before anything is written: the code and
 * message a server answers it with as a `Status` (the control plane's endpoints), and the same words a client that
 * decides it by itself prints (`kubectl ngx` against kube-apiserver alone).
 */
export class RequestRefused extends Error {
  override name = 'RequestRefused';

  constructor(
    /** 400 bad input, 404 no such revision, 409 the Nginx's state rules it out. */
    readonly code: 400 | 404 | 409,
    message: string,
    readonly details?: RefusalDetails,
  ) {
    super(message);
  }
}
