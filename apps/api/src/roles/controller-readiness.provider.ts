import type { Provider } from '@nestjs/common';
import { NginxControllerService } from '../controller/nginx-controller.service.js';
import { ControllerReadiness } from '../health/readiness-ports.js';

/** /readyz's controller part, from the controller of this process. */
export const controllerReadiness: Provider = {
  provide: ControllerReadiness,
  useExisting: NginxControllerService,
};
