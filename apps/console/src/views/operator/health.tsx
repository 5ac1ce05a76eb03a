import { operatorApi } from '../../api/console-api';
import { DateTime, Empty, LoadState, useLoad } from '../../app/components';

export function HealthView() {
  const health = useLoad(() => operatorApi.systemHealth(), []);
  return (
    <>
      <h1>System health</h1>
      <p>
        <button type="button" onClick={health.reload}>
          Check again
        </button>
      </p>
      <LoadState loaded={health}>
        {(answer) => (
          <>
            <table>
              <caption>
                Services, checked <DateTime iso={answer.checked_at} />
              </caption>
              <thead>
                <tr>
                  <th scope="col">Service</th>
                  <th scope="col">Ready</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {answer.services.map((service) => (
                  <tr key={service.name}>
                    <th scope="row">{service.name}</th>
                    <td>
                      <span className={`badge ${service.ready ? 'badge-succeeded' : 'badge-failed'}`}>{service.ready ? 'Ready' : 'Not ready'}</span>
                    </td>
                    <td>{service.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {answer.services.length === 0 && <Empty>No services reported.</Empty>}
          </>
        )}
      </LoadState>
    </>
  );
}
