import { kcmTsup } from '../../tsup.config.base.js';

export default kcmTsup();
